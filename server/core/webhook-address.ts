// Where a webhook may be sent (server-side request forgery): only to public addresses,
// unless SLUICE_WEBHOOK_ALLOW_HOSTS names the host, the address or a CIDR that holds it.
// Loopback, private, link-local (169.254.169.254, the cloud metadata service), unspecified,
// shared (CGNAT), multicast and reserved ranges are refused, in every spelling a URL or an
// IPv6 address allows: 0x7f000001, 2130706433, 017700000001 and 127.1 (the WHATWG URL
// parser turns these into 127.0.0.1), [::1], [::ffff:127.0.0.1] (mapped), [::127.0.0.1]
// (compatible), 64:ff9b::7f00:1 (NAT64) and 2002:7f00:1:: (6to4) carry the IPv4 inside.
// The save-time check sees the URL; the sender checks every address the name resolves to
// right before connecting and connects to the checked one (DNS rebinding).
// Pure: no I/O imports (server/core rule).

export type AddressKind = 'public' | 'loopback' | 'private' | 'link-local' | 'unspecified' | 'shared' | 'multicast' | 'reserved';

// ─── Parsing ──────────────────────────────────────────────────────────────────────

/** Dotted-quad IPv4 → 32-bit number, or null. Strict: four decimal parts 0–255. */
export function parseIPv4(s: string): number | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(s);
  if (!m) return null;
  const parts = m.slice(1).map(Number);
  if (parts.some((p) => p > 255)) return null;
  return ((parts[0]! << 24) | (parts[1]! << 16) | (parts[2]! << 8) | parts[3]!) >>> 0;
}

/** IPv6 (optionally in brackets, with an embedded dotted IPv4 tail, no zone) → 8 16-bit groups, or null. */
export function parseIPv6(input: string): number[] | null {
  let s = input.startsWith('[') && input.endsWith(']') ? input.slice(1, -1) : input;
  if (s.includes('%')) s = s.slice(0, s.indexOf('%')); // a zone id names an interface, not an address
  if (!/^[0-9a-fA-F:.]+$/.test(s) || !s.includes(':')) return null;
  const lastColon = s.lastIndexOf(':');
  if (s.slice(lastColon + 1).includes('.')) {
    // A dotted IPv4 tail (::ffff:127.0.0.1) is the last two groups.
    const v4tail = parseIPv4(s.slice(lastColon + 1));
    if (v4tail === null) return null;
    s = `${s.slice(0, lastColon + 1)}${(v4tail >>> 16).toString(16)}:${(v4tail & 0xffff).toString(16)}`;
  }
  const halves = s.split('::');
  if (halves.length > 2) return null;
  const groups = (h: string) => (h === '' ? [] : h.split(':'));
  const head = groups(halves[0]!);
  const rest = halves.length === 2 ? groups(halves[1]!) : [];
  if ([...head, ...rest].some((g) => !/^[0-9a-fA-F]{1,4}$/.test(g))) return null;
  const known = head.length + rest.length;
  if (halves.length === 1 && known !== 8) return null;
  if (halves.length === 2 && known > 7) return null;
  const zeros = halves.length === 2 ? Array(8 - known).fill(0) : [];
  return [...head.map((g) => parseInt(g, 16)), ...zeros, ...rest.map((g) => parseInt(g, 16))];
}

// ─── Classification ───────────────────────────────────────────────────────────────

const v4 = (a: number, b: number, c: number, d: number) => ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;
const inV4 = (ip: number, base: number, bits: number) => bits === 0 || ip >>> (32 - bits) === base >>> (32 - bits);

/** IPv4 special-purpose ranges (IANA registry) and what they are; anything else is public. */
const V4_RANGES: [number, number, AddressKind][] = [
  [v4(0, 0, 0, 0), 8, 'unspecified'], // "this network"; 0.0.0.0 reaches the local host
  [v4(10, 0, 0, 0), 8, 'private'],
  [v4(100, 64, 0, 0), 10, 'shared'], // carrier-grade NAT
  [v4(127, 0, 0, 0), 8, 'loopback'],
  [v4(169, 254, 0, 0), 16, 'link-local'], // 169.254.169.254: cloud metadata
  [v4(172, 16, 0, 0), 12, 'private'],
  [v4(192, 0, 0, 0), 24, 'reserved'], // IETF protocol assignments
  [v4(192, 0, 2, 0), 24, 'reserved'], // TEST-NET-1
  [v4(192, 88, 99, 0), 24, 'reserved'], // 6to4 relay anycast
  [v4(192, 168, 0, 0), 16, 'private'],
  [v4(198, 18, 0, 0), 15, 'reserved'], // benchmarking
  [v4(198, 51, 100, 0), 24, 'reserved'], // TEST-NET-2
  [v4(203, 0, 113, 0), 24, 'reserved'], // TEST-NET-3
  [v4(224, 0, 0, 0), 4, 'multicast'],
  [v4(240, 0, 0, 0), 4, 'reserved'], // includes 255.255.255.255
];

export function classifyIPv4(ip: number): AddressKind {
  for (const [base, bits, kind] of V4_RANGES) if (inV4(ip, base, bits)) return kind;
  return 'public';
}

/** The IPv4 address an IPv6 address carries (mapped, compatible, NAT64, 6to4), or null. */
function embeddedIPv4(g: number[]): number | null {
  const low32 = ((g[6]! << 16) | g[7]!) >>> 0;
  const zeroUpTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeroUpTo(5) && g[5] === 0xffff) return low32; // ::ffff:a.b.c.d (mapped)
  if (zeroUpTo(4) && g[4] === 0xffff && g[5] === 0) return low32; // ::ffff:0:a.b.c.d (translated)
  if (zeroUpTo(6) && low32 > 1) return low32; // ::a.b.c.d (compatible, deprecated); ::, ::1 are themselves
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return low32; // 64:ff9b::/96 NAT64
  if (g[0] === 0x2002) return ((g[1]! << 16) | g[2]!) >>> 0; // 2002::/16 6to4
  return null;
}

export function classifyIPv6(g: number[]): AddressKind {
  if (g.every((x) => x === 0)) return 'unspecified';
  if (g.slice(0, 7).every((x) => x === 0) && g[7] === 1) return 'loopback';
  const inner = embeddedIPv4(g);
  if (inner !== null) return classifyIPv4(inner);
  const first = g[0]!;
  if ((first & 0xfe00) === 0xfc00) return 'private'; // fc00::/7 unique local
  if ((first & 0xffc0) === 0xfe80) return 'link-local'; // fe80::/10
  if ((first & 0xffc0) === 0xfec0) return 'private'; // fec0::/10 site-local (deprecated)
  if ((first & 0xff00) === 0xff00) return 'multicast';
  if (first === 0x100 && g.slice(1, 4).every((x) => x === 0)) return 'reserved'; // 100::/64 discard
  if (first === 0x2001 && g[1] === 0xdb8) return 'reserved'; // documentation
  if ((first & 0xe000) !== 0x2000) return 'reserved'; // outside 2000::/3, the global unicast space
  return 'public';
}

/** An IP literal's kind, or null when `s` is not an IP address (a host name). */
export function classifyAddress(s: string): AddressKind | null {
  const a = parseIPv4(s);
  if (a !== null) return classifyIPv4(a);
  const g = parseIPv6(s);
  return g ? classifyIPv6(g) : null;
}

// ─── The allow-list ───────────────────────────────────────────────────────────────

export type AllowEntry = { kind: 'host'; host: string } | { kind: 'v4'; base: number; bits: number } | { kind: 'v6'; groups: number[]; bits: number };

/**
 * SLUICE_WEBHOOK_ALLOW_HOSTS: comma-separated host names (exact, case-insensitive), IP
 * addresses and CIDRs, e.g. `127.0.0.1, 10.0.0.0/8, hooks.internal.example, fd00::/8`.
 * Throws RangeError naming a bad entry.
 */
export function parseAllowList(text: string | undefined): AllowEntry[] {
  if (!text) return [];
  return text
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '')
    .map((e): AllowEntry => {
      const [addr, bitsText, extra] = e.split('/');
      if (extra !== undefined) throw new RangeError(`"${e}" is not a host, an address or a CIDR`);
      const a = parseIPv4(addr!);
      const g = a === null ? parseIPv6(addr!) : null;
      const max = a !== null ? 32 : 128;
      const bits = bitsText === undefined ? max : /^\d{1,3}$/.test(bitsText) ? Number(bitsText) : Number.NaN;
      if ((a !== null || g !== null) && !(bits >= 0 && bits <= max)) throw new RangeError(`"${e}" has a bad prefix length`);
      if (a !== null) return { kind: 'v4', base: a, bits };
      if (g !== null) return { kind: 'v6', groups: g, bits };
      if (bitsText !== undefined || !/^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?\.?$/i.test(addr!)) {
        throw new RangeError(`"${e}" is not a host, an address or a CIDR`);
      }
      return { kind: 'host', host: addr!.toLowerCase().replace(/\.$/, '') };
    });
}

function inV6(g: number[], base: number[], bits: number): boolean {
  for (let i = 0; i < 8 && bits > 0; i++, bits -= 16) {
    const mask = bits >= 16 ? 0xffff : (0xffff << (16 - bits)) & 0xffff;
    if ((g[i]! & mask) !== (base[i]! & mask)) return false;
  }
  return true;
}

/** True when the allow-list names this host (exactly) or holds this address. */
export function isAllowed(hostOrAddress: string, allow: readonly AllowEntry[]): boolean {
  const host = hostOrAddress.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');
  const a = parseIPv4(host);
  const g = a === null ? parseIPv6(host) : null;
  return allow.some((e) => {
    if (e.kind === 'host') return e.host === host;
    if (e.kind === 'v4') {
      if (a !== null) return inV4(a, e.base, e.bits);
      const inner = g ? embeddedIPv4(g) : null; // ::ffff:127.0.0.1 is 127.0.0.1
      return inner !== null && inV4(inner, e.base, e.bits);
    }
    return g !== null && inV6(g, e.groups, e.bits);
  });
}

// ─── The checks ───────────────────────────────────────────────────────────────────

/** Host names that always mean this machine (RFC 6761), whatever DNS says. */
function isLocalName(host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  return h === 'localhost' || h.endsWith('.localhost') || h === 'localhost.localdomain';
}

export const ALLOW_HINT = 'allow it with SLUICE_WEBHOOK_ALLOW_HOSTS';

/**
 * Why a webhook URL may not be saved, or null. A host name passes here (what it resolves
 * to is checked when sending); an IP literal or a local name is judged now.
 */
export function webhookUrlProblem(url: string, allow: readonly AllowEntry[]): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return 'must be an http:// or https:// URL';
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return 'must be an http:// or https:// URL';
  if (u.username || u.password) return 'must not carry a user name or password (use the secret to sign instead)';
  const host = u.hostname; // normalised: 0x7f000001 → 127.0.0.1, [::ffff:127.0.0.1] → [::ffff:7f00:1]
  if (isAllowed(host, allow)) return null;
  if (isLocalName(host)) return `must not point at this machine (${host}); ${ALLOW_HINT}`;
  const kind = classifyAddress(host);
  if (kind !== null && kind !== 'public') return `must not point at a ${kind} address (${host}); ${ALLOW_HINT}`;
  return null;
}

/** Why the sender must not connect to `address` (one that `host` resolved to), or null. */
export function resolvedAddressProblem(host: string, address: string, allow: readonly AllowEntry[]): string | null {
  if (isAllowed(host, allow) || isAllowed(address, allow)) return null;
  const kind = classifyAddress(address);
  if (kind === null) return `${host} resolved to something that is not an IP address`;
  if (kind !== 'public') return `${host} resolves to a ${kind} address (${address}); ${ALLOW_HINT}`;
  return null;
}
