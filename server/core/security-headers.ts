// The security headers every response carries, and the Content-Security-Policy of pages.
// Pure: proxy.ts (pages, per request, with a fresh nonce) and next.config.js (every path,
// and the policy of API responses) build their headers here.
//
// Pages: scripts only with the request's nonce ('strict-dynamic' lets those load the
// chunks they import). Next.js reads the nonce from the policy on the request and puts it
// on its own scripts, inline ones included; there is no other inline script. Styles may be
// inline: the charts (recharts) and server-rendered components write style attributes, and
// a nonce cannot cover an attribute. frame-ancestors 'none' (and X-Frame-Options for older
// browsers): no page can be framed, so no Drain or Pause button can be clickjacked.

export interface PagePolicyOptions {
  nonce: string;
  /** `next dev`: React's dev build needs eval, and the reload socket a ws: connection. */
  dev: boolean;
  /** Served over HTTPS (secure cookies on): upgrade any http: subresource. */
  secure: boolean;
}

export function pageContentSecurityPolicy(o: PagePolicyOptions): string {
  const directives = [
    `default-src 'self'`,
    `script-src 'self' 'nonce-${o.nonce}' 'strict-dynamic'${o.dev ? ` 'unsafe-eval'` : ''}`,
    `style-src 'self' 'unsafe-inline'`,
    `img-src 'self' data: blob:`,
    `font-src 'self' data:`,
    `connect-src 'self'${o.dev ? ' ws: wss:' : ''}`,
    `object-src 'none'`,
    `base-uri 'self'`,
    `form-action 'self'`,
    `frame-ancestors 'none'`,
  ];
  if (o.secure) directives.push('upgrade-insecure-requests');
  return directives.join('; ');
}

/** JSON, YAML, text: nothing in them may run, load or be framed. */
export const API_CONTENT_SECURITY_POLICY = `default-src 'none'; frame-ancestors 'none'`;

/** Two years, the preload list's minimum. */
export const HSTS_VALUE = 'max-age=63072000; includeSubDomains';

/** The headers every response carries, whatever it is. */
export const COMMON_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
  'X-Frame-Options': 'DENY',
};

/** A random nonce for one response: 128 bits, base64. */
export function newNonce(randomBytes: Uint8Array): string {
  let s = '';
  for (const b of randomBytes) s += String.fromCharCode(b);
  return btoa(s);
}
