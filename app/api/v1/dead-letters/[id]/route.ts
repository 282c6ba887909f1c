// GET /api/v1/dead-letters/{id} — payload, groups, stream, every attempt, last stack, replays.
import { restRoute } from '@/server/api/rest';
import { deadLetterDetail } from '@/server/presenters/dead-letters';
import { idFromPath } from '@/server/api/dlq-rest-query';

export const dynamic = 'force-dynamic';

export const GET = restRoute<{ id: string }>(['viewer', 'operator'], async ({ db }, { id }) => ({
  status: 200,
  headers: { 'content-type': 'application/json' },
  body: await deadLetterDetail(db, { id: idFromPath(id) }),
}));
