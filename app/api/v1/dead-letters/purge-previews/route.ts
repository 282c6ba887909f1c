// POST /api/v1/dead-letters/purge-previews {scope: {ids} | {filter}, dryRun?}
// 201: the frozen set's id, count, per-task counts and the confirmation phrase to send to
// POST /api/v1/dead-letters/purge. Dead letters arriving later are never in the set.
import { restRoute, TOKEN_ACCESS } from '@/server/api/rest';
import { previewPurgeReply } from '@/server/api/rest-dead-letters';

export const dynamic = 'force-dynamic';

export const POST = restRoute(TOKEN_ACCESS.operate, previewPurgeReply);
