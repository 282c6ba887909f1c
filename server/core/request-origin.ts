// Cross-site request forgery: which mutation requests to refuse, from their headers. Pure.
//
// SameSite=Lax keeps the session cookie off cross-SITE POSTs, but a page on a sibling
// subdomain (same site, other origin) still sends it, and so would a browser that ignores
// SameSite. So every mutation a browser could make with the session cookie must come from
// the control plane's own origin: the configured public URL (SLUICE_PUBLIC_URL), or, when
// none is configured, the origin the request itself was addressed to (its Host).
//
// Browsers send Origin on every POST (and Sec-Fetch-Site on every request) they make, so:
// - an Origin must be an allowed one (also without a cookie: no sign-in CSRF either);
// - with no Origin, Sec-Fetch-Site must say same-origin;
// - with neither, the client is not a browser (curl, a script): nothing ambient to forge,
//   but a request carrying the session cookie is refused all the same — a client that
//   holds the cookie and sends no Origin is not one the console makes.

export interface MutationOriginInput {
  origin: string | null;
  secFetchSite: string | null;
  /** The Host header the request was addressed to. */
  host: string | null;
  /** SLUICE_PUBLIC_URL, when configured. */
  publicUrl: string | null | undefined;
  /** Whether the request carries the session cookie. */
  hasSessionCookie: boolean;
}

/** The origins mutations may come from. */
export function allowedOrigins(publicUrl: string | null | undefined, host: string | null): string[] {
  if (publicUrl) return [new URL(publicUrl).origin];
  if (!host) return [];
  const out: string[] = [];
  for (const scheme of ['http', 'https']) {
    try {
      out.push(new URL(`${scheme}://${host}`).origin);
    } catch {
      // A Host that is no host allows nothing.
    }
  }
  return out;
}

/** Why the mutation must be refused (a message for a 403), or null when it may go ahead. */
export function mutationOriginProblem(i: MutationOriginInput): string | null {
  const allowed = allowedOrigins(i.publicUrl, i.host);
  if (i.origin !== null) {
    return allowed.includes(i.origin)
      ? null
      : `cross-origin request refused: Origin ${JSON.stringify(i.origin.slice(0, 200))} is not this control plane's (${allowed.join(' or ') || 'none'})`;
  }
  if (i.secFetchSite !== null) {
    return i.secFetchSite === 'same-origin'
      ? null
      : `cross-origin request refused: Sec-Fetch-Site is ${JSON.stringify(i.secFetchSite.slice(0, 40))}, not same-origin`;
  }
  return i.hasSessionCookie ? 'request refused: a request carrying the session cookie must send an Origin header' : null;
}
