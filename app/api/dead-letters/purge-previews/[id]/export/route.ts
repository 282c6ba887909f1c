// GET /api/dead-letters/purge-previews/{id}/export — the browser's download of a frozen purge set
// as JSON lines, for whoever is signed in: the operator check is the dlq.purgePreview
// procedure's (one place for roles); the body is the same stream as the REST route's.
import { createCaller } from '@/server/api/root';
import { createContext } from '@/server/api/context';
import { httpCookieJar } from '@/server/api/http-cookies';
import { frozenSetExportResponse } from '@/server/api/dead-letter-export-response';
import { env } from '@/server/env';
import { plainTextErrorResponse } from '@/server/api/errors';

export const dynamic = 'force-dynamic';

export async function GET(req: Request, route: { params: Promise<{ id: string }> }): Promise<Response> {
  const { id } = await route.params;
  try {
    const ctx = await createContext({ headers: req.headers, cookies: httpCookieJar(req, new Headers(), env().SLUICE_SECURE_COOKIES) });
    await createCaller(ctx).deadLetters.purgePreview({ id });
    return await frozenSetExportResponse(ctx.db, id);
  } catch (e) {
    return plainTextErrorResponse(e);
  }
}
