// GET /api/v1/executions/{id} — an execution's state, attempts, last error and why it
// waits (`whyWaiting`; `waitingOn` keeps its meaning: the key the claim set it aside on).
// Producer tokens get everything but the payload (`payloadHidden: true`).
import { restRoute } from '@/server/api/rest';
import { executionDetail } from '@/server/presenters/execution';
import { CoreError } from '@/server/core/errors';

export const GET = restRoute<{ id: string }>(['producer', 'operator', 'viewer', 'coordinator'], async ({ db, token }, { id }) => {
  if (!/^\d{1,15}$/.test(id)) throw CoreError.badRequest('execution id must be a positive integer', [{ path: 'id', message: 'must be a positive integer' }]);
  const execution = await executionDetail(db, { id }, { includePayload: token.role !== 'producer' });
  return { status: 200, headers: { 'content-type': 'application/json' }, body: execution };
});
