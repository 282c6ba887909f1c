// GET /api/v1/executions/{id} — an execution's state, attempts, last error and why it
// waits (`whyWaiting`; `waitingOn` keeps its meaning: the key the claim set it aside on).
// Producer tokens get everything but the payload (`payloadHidden: true`).
import { restRoute, TOKEN_ACCESS } from '@/server/api/rest';
import { jsonReply } from '@/server/api/errors';
import { executionDetail } from '@/server/presenters/execution';
import { CoreError } from '@/server/core/errors';

export const GET = restRoute<{ id: string }>(TOKEN_ACCESS.any, async ({ db, token }, { id }) => {
  if (!/^\d{1,15}$/.test(id)) throw CoreError.badRequest('execution id must be a positive integer', [{ path: 'id', message: 'must be a positive integer' }]);
  const execution = await executionDetail(db, { id }, { includePayload: token.role !== 'producer' });
  return jsonReply(execution);
});
