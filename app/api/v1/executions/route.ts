// GET /api/v1/executions?task=&state=&group=&stream=&idempotencyKey=&id=&enqueuedFrom=&enqueuedTo=
//   &finishedFrom=&finishedTo=&payload=&order=&cursor=&limit=
// Keyset pages: pass `nextCursor` back as `cursor`. Producer tokens list executions but
// may not match on payloads (they never read payloads; docs/handlers.md).
import { restRoute } from '@/server/api/rest';
import { executionListInputFromQuery, listExecutionPage, refusePayloadFilter } from '@/server/presenters/execution';

export const dynamic = 'force-dynamic';

export const GET = restRoute(['producer', 'operator', 'viewer', 'coordinator'], async ({ req, token, db }) => {
  const input = executionListInputFromQuery(new URL(req.url).searchParams);
  if (token.role === 'producer') refusePayloadFilter(input);
  return { status: 200, headers: { 'content-type': 'application/json' }, body: await listExecutionPage(db, input) };
});
