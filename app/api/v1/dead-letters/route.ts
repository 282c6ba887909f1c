// GET /api/v1/dead-letters?task=&fingerprint=&group=&stream=&from=&to=&q=&status=&cursor=&limit=
// Newest first, keyset pages: pass `nextCursor` back as `cursor`.
import { restRoute, TOKEN_ACCESS } from '@/server/api/rest';
import { jsonReply } from '@/server/api/errors';
import { listDeadLetterPage } from '@/server/presenters/dead-letters';
import { listInputFromQuery } from '@/server/api/dead-letter-rest-query';

export const dynamic = 'force-dynamic';

export const GET = restRoute(TOKEN_ACCESS.read, async ({ req, db }) => jsonReply(await listDeadLetterPage(db, listInputFromQuery(new URL(req.url).searchParams))));
