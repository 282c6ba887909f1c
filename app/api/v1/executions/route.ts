// GET /api/v1/executions?task=&state=&group=&stream=&idempotencyKey=&id=&enqueuedFrom=&enqueuedTo=
//   &finishedFrom=&finishedTo=&payload=&order=&cursor=&limit=
// Keyset pages: pass `nextCursor` back as `cursor`. Producer tokens list executions but
// may not match on payloads (they never read payloads; docs/handlers.md).
import { restRoute, TOKEN_ACCESS } from '@/server/api/rest';
import { jsonReply } from '@/server/api/errors';
import { executionListInputFromQuery, listExecutionPage, refusePayloadFilter } from '@/server/presenters/execution';

export const dynamic = 'force-dynamic';

export const GET = restRoute(TOKEN_ACCESS.any, async ({ req, token, db }) => {
  const input = executionListInputFromQuery(new URL(req.url).searchParams);
  if (token.role === 'producer') refusePayloadFilter(input);
  return jsonReply(await listExecutionPage(db, input));
});
