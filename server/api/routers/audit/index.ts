// The Audit page's list: filters + keyset pagination, newest first.
import { auditListInput, listAudit } from '../../../presenters/audit';
import { router, viewerProcedure } from '../../trpc';

export const auditRouter = router({
  list: viewerProcedure.input(auditListInput).query(({ ctx, input }) => listAudit(ctx.readDb, input)),
});
