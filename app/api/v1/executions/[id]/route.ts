// GET /api/v1/executions/{id} — an execution's state, attempts and last error.
import { restRoute } from '@/server/api/rest';
import { getExecution } from '@/server/presenters/execution';
import { CoreError } from '@/server/core/errors';

export const GET = restRoute<{ id: string }>(['producer', 'operator', 'viewer', 'coordinator'], async ({ db }, { id }) => {
  if (!/^\d{1,18}$/.test(id)) throw CoreError.badRequest('execution id must be a positive integer', [{ path: 'id', message: 'must be a positive integer' }]);
  const execution = await getExecution(db, id);
  if (!execution) throw CoreError.notFound(`execution ${id}`);
  return { status: 200, headers: { 'content-type': 'application/json' }, body: execution };
});
