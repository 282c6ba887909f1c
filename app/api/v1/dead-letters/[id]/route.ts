// GET /api/v1/dead-letters/{id} — payload, groups, stream, every attempt, last stack, replays.
import { restRoute, TOKEN_ACCESS } from '@/server/api/rest';
import { jsonReply } from '@/server/api/errors';
import { deadLetterDetail } from '@/server/presenters/dead-letters';
import { idFromPath } from '@/server/api/dead-letter-rest-query';

export const dynamic = 'force-dynamic';

export const GET = restRoute<{ id: string }>(TOKEN_ACCESS.read, async ({ db }, { id }) => jsonReply(await deadLetterDetail(db, { id: idFromPath(id) })));
