// Executions, read side: the filtered list and one execution with why it waits. Every
// signed-in user reads (viewers included: the console's users see payloads; only
// producer API tokens do not, see app/api/v1/executions). Actions live beside these.
import { executionDetail, executionIdInput, executionListInput, listExecutionPage } from '../../../presenters/execution';
import { router, viewerProcedure } from '../../trpc';

export const executionsRouter = router({
  // The list from the read replica when there is one; the detail (read after an action) from the primary.
  list: viewerProcedure.input(executionListInput).query(({ ctx, input }) => listExecutionPage(ctx.readDb, input)),
  get: viewerProcedure.input(executionIdInput).query(({ ctx, input }) => executionDetail(ctx.db, input, { includePayload: true })),
});
