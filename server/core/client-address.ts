// Which address a request came from, for sign-in throttling and for what sessions and
// audit entries record. Pure: given the request headers and how many reverse proxies are
// trusted.

/** Set by Sluice's web server (server/web/serve.mjs) on every request from the TCP peer's
 *  address, overwriting whatever a client sent under this name. */
export const PEER_ADDRESS_HEADER = 'x-sluice-peer-address';

/**
 * Behind Sluice's own server: the TCP peer, or with `trustedProxies` = n reverse proxies in
 * front, the address n hops back — each proxy appends the address it saw to
 * X-Forwarded-For, so the last n entries are theirs and anything before them is whatever
 * the client claimed (more hops trusted than there are entries: the first entry). Served
 * some other way (plain `next dev`/`next start`): the first X-Forwarded-For hop, else
 * X-Real-IP — but then every header here, the peer header included, is the client's to
 * choose: only Sluice's server makes this address trustworthy.
 */
export function clientAddress(headers: Headers, trustedProxies = 0): string {
  const peer = headers.get(PEER_ADDRESS_HEADER)?.trim();
  const forwarded = (headers.get('x-forwarded-for') ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  let ip: string | undefined;
  if (peer) {
    const chain = [...forwarded, peer];
    ip = chain[Math.max(0, chain.length - 1 - Math.max(0, Math.floor(trustedProxies)))];
  } else {
    ip = forwarded[0] || headers.get('x-real-ip')?.trim();
  }
  return (ip || 'unknown').slice(0, 100);
}
