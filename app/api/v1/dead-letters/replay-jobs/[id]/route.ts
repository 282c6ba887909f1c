// GET /api/v1/dead-letters/replay-jobs/{id} — state, counters and progress (0…1).
import { restRoute } from '@/server/api/rest';
import { getPool } from '@/server/db/pool';
import { replayJob } from '@/server/presenters/dead-letters';
import { idFromPath } from '@/server/services/dlq-rest-query';

export const dynamic = 'force-dynamic';

export const GET = restRoute<{ id: string }>(['viewer', 'operator'], async (_ctx, { id }) => ({
  status: 200,
  headers: { 'content-type': 'application/json' },
  body: await replayJob(getPool(), { id: idFromPath(id) }),
}));
