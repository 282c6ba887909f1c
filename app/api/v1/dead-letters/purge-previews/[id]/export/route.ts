// GET /api/v1/dead-letters/purge-previews/{id}/export — the frozen set as JSON lines
// (application/x-ndjson), streamed page by page; download it before purging.
import { restRoute, TOKEN_ACCESS } from '@/server/api/rest';
import { frozenSetExportResponse } from '@/server/api/dead-letter-export-response';

export const dynamic = 'force-dynamic';

// 400 / 404 / 409 (already purged) before the stream starts
export const GET = restRoute<{ id: string }>(TOKEN_ACCESS.operate, async ({ db }, { id }) => frozenSetExportResponse(db, id));
