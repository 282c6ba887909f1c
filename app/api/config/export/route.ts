// GET /api/config/export[?version=N]: the config as a YAML file for
// `sluice config apply`, for whoever is signed in (the session cookie; the viewer role
// check is the config.export procedure's, so it lives in one place).
import { createCaller } from '@/server/api/root';
import { createContext } from '@/server/api/context';
import { httpCookieJar } from '@/server/api/http-cookies';
import { env } from '@/server/env';
import { plainTextErrorResponse } from '@/server/api/errors';

export const dynamic = 'force-dynamic';

export async function GET(req: Request): Promise<Response> {
  const url = new URL(req.url);
  const raw = url.searchParams.get('version');
  const version = raw === null || raw === '' ? undefined : Number(raw);
  const resHeaders = new Headers();
  try {
    const ctx = await createContext({ headers: req.headers, cookies: httpCookieJar(req, resHeaders, env().SLUICE_SECURE_COOKIES) });
    const file = await createCaller(ctx).config.export(version === undefined ? {} : { version });
    return new Response(file.yaml, {
      headers: {
        'content-type': 'application/yaml; charset=utf-8',
        'content-disposition': `attachment; filename="${file.filename}"`,
        'cache-control': 'no-store',
      },
    });
  } catch (e) {
    return plainTextErrorResponse(e);
  }
}
