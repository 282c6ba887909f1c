// GET /api/v1/dead-letters?task=&fingerprint=&group=&stream=&from=&to=&q=&status=&cursor=&limit=
// Newest first, keyset pages: pass `nextCursor` back as `cursor`.
import { restRoute } from '@/server/api/rest';
import { listDeadLetterPage } from '@/server/presenters/dead-letters';
import { listInputFromQuery } from '@/server/api/dlq-rest-query';

export const dynamic = 'force-dynamic';

export const GET = restRoute(['viewer', 'operator'], async ({ req, db }) => ({
  status: 200,
  headers: { 'content-type': 'application/json' },
  body: await listDeadLetterPage(db, listInputFromQuery(new URL(req.url).searchParams)),
}));
