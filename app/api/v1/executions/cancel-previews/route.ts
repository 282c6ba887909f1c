// POST /api/v1/executions/cancel-previews {filter, dryRun?}
// 201: the frozen set's id, count per state and the confirmation phrase to send to
// POST /api/v1/executions/cancel. Executions enqueued later are never in the set.
import { restRoute } from '@/server/api/rest';
import { getPool } from '@/server/db/pool';
import { CoreError } from '@/server/core/errors';
import { cancelPreviewInput, previewCancelMatching } from '@/server/services/execution-cancel-matching';
import { parseInput } from '@/server/services/validate-input';

export const dynamic = 'force-dynamic';

export const POST = restRoute(['operator'], async ({ actor, body }) => {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw CoreError.badRequest('the body must be a JSON object {filter, dryRun?}', [{ path: 'filter', message: 'is required' }]);
  const { filter, dryRun } = parseInput(cancelPreviewInput, body);
  const preview = await previewCancelMatching(getPool(), actor, filter, { dryRun });
  return { status: dryRun ? 200 : 201, headers: { 'content-type': 'application/json' }, body: dryRun ? { ...preview, id: null, dryRun } : preview };
});
