// GET /api/v1/dead-letters/{id} — payload, groups, stream, every attempt, last stack, replays.
import { restRoute } from '@/server/api/rest';
import { getPool } from '@/server/db/pool';
import { deadLetterDetail } from '@/server/presenters/dead-letters';
import { idFromPath } from '@/server/services/dlq-rest-query';

export const dynamic = 'force-dynamic';

export const GET = restRoute<{ id: string }>(['viewer', 'operator'], async (_ctx, { id }) => ({
  status: 200,
  headers: { 'content-type': 'application/json' },
  body: await deadLetterDetail(getPool(), { id: idFromPath(id) }),
}));
