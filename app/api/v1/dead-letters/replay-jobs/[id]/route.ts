// GET /api/v1/dead-letters/replay-jobs/{id} — state, counters and progress (0…1).
import { restRoute, TOKEN_ACCESS } from '@/server/api/rest';
import { jsonReply } from '@/server/api/errors';
import { replayJob } from '@/server/presenters/dead-letters';
import { idFromPath } from '@/server/api/dead-letter-rest-query';

export const dynamic = 'force-dynamic';

export const GET = restRoute<{ id: string }>(TOKEN_ACCESS.read, async ({ db }, { id }) => jsonReply(await replayJob(db, { id: idFromPath(id) })));
