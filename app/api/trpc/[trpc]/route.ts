// The tRPC HTTP endpoint (batched queries and mutations from the browser).
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { appRouter } from '@/server/api/root';
import { createContext } from '@/server/api/context';
import { httpCookieJar } from '@/server/api/http-cookies';
import { env } from '@/server/env';

export const dynamic = 'force-dynamic';

function handler(req: Request) {
  return fetchRequestHandler({
    endpoint: '/api/trpc',
    req,
    router: appRouter,
    createContext: ({ resHeaders }) =>
      createContext({ headers: req.headers, cookies: httpCookieJar(req, resHeaders, env().SLUICE_SECURE_COOKIES) }),
  });
}

export { handler as GET, handler as POST };
