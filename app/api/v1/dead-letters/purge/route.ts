// POST /api/v1/dead-letters/purge {previewId, confirm: "purge <count>"} — deletes exactly
// the preview's frozen set, once; audited with the filter and counts.
import { restRoute, TOKEN_ACCESS } from '@/server/api/rest';
import { purgeReply } from '@/server/api/rest-dead-letters';

export const dynamic = 'force-dynamic';

export const POST = restRoute(TOKEN_ACCESS.operate, purgeReply);
