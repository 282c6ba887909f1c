// GET /api/v1/dead-letters/replay-jobs/{id} — state, counters and progress (0…1).
import { restRoute } from '@/server/api/rest';
import { replayJob } from '@/server/presenters/dead-letters';
import { idFromPath } from '@/server/api/dlq-rest-query';

export const dynamic = 'force-dynamic';

export const GET = restRoute<{ id: string }>(['viewer', 'operator'], async ({ db }, { id }) => ({
  status: 200,
  headers: { 'content-type': 'application/json' },
  body: await replayJob(db, { id: idFromPath(id) }),
}));
