// POST /api/v1/executions/cancel-previews {filter, dryRun?}
// 201: the frozen set's id, count per state and the confirmation phrase to send to
// POST /api/v1/executions/cancel. Executions enqueued later are never in the set.
import { restRoute, TOKEN_ACCESS } from '@/server/api/rest';
import { previewCancelReply } from '@/server/api/rest-execution-actions';

export const dynamic = 'force-dynamic';

export const POST = restRoute(TOKEN_ACCESS.operate, previewCancelReply);
