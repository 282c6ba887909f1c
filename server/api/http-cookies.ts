// Cookies for the tRPC HTTP handler: read from the request's Cookie header, written as
// Set-Cookie on the response. Session cookies are HttpOnly, SameSite=Lax, Path=/, and
// Secure when SLUICE_SECURE_COOKIES is set (served over HTTPS).
import type { CookieJar, CookieOptions } from './context';

export function parseCookieHeader(header: string | null): Map<string, string> {
  const out = new Map<string, string>();
  if (!header) return out;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 1) continue;
    const name = part.slice(0, eq).trim();
    const raw = part.slice(eq + 1).trim();
    try {
      if (!out.has(name)) out.set(name, decodeURIComponent(raw));
    } catch {
      // A malformed value is ignored, as if the cookie were absent.
    }
  }
  return out;
}

export function serializeCookie(name: string, value: string, opts: CookieOptions & { secure: boolean; maxAge?: number }): string {
  const parts = [`${name}=${encodeURIComponent(value)}`, 'Path=/', 'HttpOnly', 'SameSite=Lax'];
  if (opts.expires) parts.push(`Expires=${opts.expires.toUTCString()}`);
  if (opts.maxAge !== undefined) parts.push(`Max-Age=${opts.maxAge}`);
  if (opts.secure) parts.push('Secure');
  return parts.join('; ');
}

/** A jar over a request's cookies that appends Set-Cookie to `resHeaders`. */
export function httpCookieJar(req: Request, resHeaders: Headers, secure: boolean): CookieJar {
  const cookies = parseCookieHeader(req.headers.get('cookie'));
  return {
    get: (name) => cookies.get(name),
    set(name, value, opts = {}) {
      cookies.set(name, value);
      resHeaders.append('Set-Cookie', serializeCookie(name, value, { ...opts, secure }));
    },
    delete(name) {
      cookies.delete(name);
      resHeaders.append('Set-Cookie', serializeCookie(name, '', { expires: new Date(0), maxAge: 0, secure }));
    },
  };
}
