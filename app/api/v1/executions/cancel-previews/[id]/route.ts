// GET /api/v1/executions/cancel-previews/{id} — a cancel preview: its filter, count,
// expiry, and whether (and by whom, how many) it was applied.
import { restRoute, TOKEN_ACCESS } from '@/server/api/rest';
import { cancelPreviewReply } from '@/server/api/rest-execution-actions';

export const dynamic = 'force-dynamic';

export const GET = restRoute<{ id: string }>(TOKEN_ACCESS.operate, cancelPreviewReply);
