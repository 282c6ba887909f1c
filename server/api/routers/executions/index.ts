// Executions, read side: the filtered list and one execution with why it waits. Every
// signed-in user reads (viewers included: the console's users see payloads; only
// producer API tokens do not, see app/api/v1/executions). Actions live beside these.
import { executionDetail, executionIdInput, executionListInput, listExecutionPage } from '../../../presenters/execution';
import { router, viewerProcedure } from '../../trpc';

export const executionsRouter = router({
  list: viewerProcedure.input(executionListInput).query(({ ctx, input }) => listExecutionPage(ctx.db, input)),
  get: viewerProcedure.input(executionIdInput).query(({ ctx, input }) => executionDetail(ctx.db, input, { includePayload: true })),
});
