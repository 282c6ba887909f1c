// Next.js proxy (Next 16's name for middleware): every page response gets a
// Content-Security-Policy with a fresh nonce. The policy goes on the request too — Next.js
// reads the nonce from it and puts it on its own scripts while rendering (the pages are
// rendered per request anyway: they read the session cookie). The policy itself, and why
// it is shaped so: server/core/security-headers.ts. Headers every response carries (pages,
// API, assets) come from next.config.js; HSTS from server/web/serve.mjs.
import { NextResponse, type NextRequest } from 'next/server';
import { newNonce, pageContentSecurityPolicy } from './server/core/security-headers';
import { env } from './server/env';

export function proxy(request: NextRequest): NextResponse {
  const nonce = newNonce(crypto.getRandomValues(new Uint8Array(16)));
  const policy = pageContentSecurityPolicy({ nonce, dev: process.env.NODE_ENV === 'development', secure: env().SLUICE_SECURE_COOKIES });
  const headers = new Headers(request.headers);
  headers.set('content-security-policy', policy);
  const response = NextResponse.next({ request: { headers } });
  response.headers.set('content-security-policy', policy);
  return response;
}

export const config = {
  matcher: [
    {
      // Pages only: API routes and /metrics answer JSON or text with their own policy
      // (next.config.js), and static assets need none.
      source: '/((?!api/|metrics$|_next/static|_next/image|favicon.ico).*)',
      missing: [
        { type: 'header', key: 'next-router-prefetch' },
        { type: 'header', key: 'purpose', value: 'prefetch' },
      ],
    },
  ],
};
