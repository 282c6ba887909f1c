// POST /api/v1/dead-letters/replay-jobs/{id}/pause | resume | cancel
import { restRoute } from '@/server/api/rest';
import { getPool } from '@/server/db/pool';
import { controlReplayJob } from '@/server/services/dlq-replay';
import { idFromPath } from '@/server/services/dlq-rest-query';

export const dynamic = 'force-dynamic';

export const POST = restRoute<{ id: string; action: string }>(['operator'], async ({ actor }, { id, action }) => ({
  status: 200,
  headers: { 'content-type': 'application/json' },
  body: await controlReplayJob(getPool(), actor, { jobId: idFromPath(id), action: action as never }),
}));
