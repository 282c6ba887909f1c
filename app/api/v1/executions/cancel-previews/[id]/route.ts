// GET /api/v1/executions/cancel-previews/{id} — a cancel preview: its filter, count,
// expiry, and whether (and by whom, how many) it was applied.
import { restRoute } from '@/server/api/rest';
import { getPool } from '@/server/db/pool';
import { cancelPreviewStatus } from '@/server/services/execution-cancel-matching';

export const dynamic = 'force-dynamic';

export const GET = restRoute<{ id: string }>(['operator'], async (_ctx, { id }) => ({
  status: 200,
  headers: { 'content-type': 'application/json' },
  body: await cancelPreviewStatus(getPool(), id),
}));
