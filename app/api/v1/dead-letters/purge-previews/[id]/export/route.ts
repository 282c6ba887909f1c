// GET /api/v1/dead-letters/purge-previews/{id}/export — the frozen set as JSON lines
// (application/x-ndjson), streamed page by page; download it before purging.
import { restRoute } from '@/server/api/rest';
import { frozenSetExportResponse } from '@/server/api/dlq-export-response';
import { getPool } from '@/server/db/pool';
import { purgePreviewStatus } from '@/server/services/dlq-purge';

export const dynamic = 'force-dynamic';

export const GET = restRoute<{ id: string }>(['operator'], async (_ctx, { id }) => {
  const pool = getPool();
  await purgePreviewStatus(pool, id); // 400 / 404 before the stream starts
  return frozenSetExportResponse(pool, id);
});
