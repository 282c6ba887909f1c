// Operator actions on executions: cancel one, retry a scheduled one now, and cancel
// everything matching a filter in two steps (freeze a preview, confirm by typing
// "cancel <count>"). Each procedure is one call into a service; the services validate
// their input again (REST and the CLI call them too) and audit.
import { z } from 'zod';
import { executionCancelFilterSchema, executionIdSchema } from '../../../core/execution-cancel-filter';
import { cancelExecution, retryExecutionNow } from '../../../services/execution-actions';
import { cancelMatching, cancelMatchingInput, cancelPreviewStatus, previewCancelMatching } from '../../../services/execution-cancel-matching';
import { userActor } from '../../../services/auth';
import { operatorProcedure, router } from '../../trpc';

const idInput = z.object({ id: executionIdSchema }).strict();

export const executionActionsRouter = router({
  cancel: operatorProcedure.input(idInput).mutation(({ ctx, input }) => cancelExecution(ctx.db, userActor(ctx.user), input.id)),
  retryNow: operatorProcedure.input(idInput).mutation(({ ctx, input }) => retryExecutionNow(ctx.db, userActor(ctx.user), input.id)),

  previewCancelMatching: operatorProcedure
    .input(z.object({ filter: executionCancelFilterSchema }).strict())
    .mutation(({ ctx, input }) => previewCancelMatching(ctx.db, userActor(ctx.user), input.filter)),
  cancelPreview: operatorProcedure.input(z.object({ id: z.string() }).strict()).query(({ ctx, input }) => cancelPreviewStatus(ctx.db, input.id)),
  cancelMatching: operatorProcedure.input(cancelMatchingInput).mutation(({ ctx, input }) => cancelMatching(ctx.db, userActor(ctx.user), input)),
});
