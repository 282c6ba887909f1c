// POST /api/v1/executions/cancel {previewId, confirm: "cancel <count>", filter?} — cancels
// exactly the preview's frozen set, once; `filter`, when sent, must be the preview's.
// Audited with the filter and the counts.
import { restRoute, TOKEN_ACCESS } from '@/server/api/rest';
import { cancelMatchingReply } from '@/server/api/rest-execution-actions';

export const dynamic = 'force-dynamic';

export const POST = restRoute(TOKEN_ACCESS.operate, cancelMatchingReply);
