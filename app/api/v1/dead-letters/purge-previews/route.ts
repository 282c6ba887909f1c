// POST /api/v1/dead-letters/purge-previews {scope: {ids} | {filter}, dryRun?}
// 201: the frozen set's id, count, per-task counts and the confirmation phrase to send to
// POST /api/v1/dead-letters/purge. Dead letters arriving later are never in the set.
import { restRoute } from '@/server/api/rest';
import { getPool } from '@/server/db/pool';
import { previewPurgeRequest } from '@/server/services/dlq-purge';

export const dynamic = 'force-dynamic';

export const POST = restRoute(['operator'], async ({ actor, body }) => {
  const { preview, dryRun } = await previewPurgeRequest(getPool(), actor, body);
  return { status: dryRun ? 200 : 201, headers: { 'content-type': 'application/json' }, body: dryRun ? { ...preview, id: null, dryRun } : preview };
});
