// MurmurHash3, x86 32-bit variant (Austin Appleby, public domain), over the UTF-8 bytes
// of the string, unsigned result. Deterministic across processes, platforms and
// engines: it uses only 32-bit integer arithmetic (Math.imul, >>> 0) and an explicit
// UTF-8 encoding (lone surrogates encode as U+FFFD, exactly as TextEncoder does).
// Used for hash routing (same key → same partition) and rendezvous ownership, so
// changing it would move every key and every partition: don't.
// Pure: no I/O imports (server/core rule).

const C1 = 0xcc9e2d51;
const C2 = 0x1b873593;

/** UTF-8 bytes of `s` (WHATWG semantics: unpaired surrogates → EF BF BD). */
export function utf8Bytes(s: string): Uint8Array {
  const out: number[] = [];
  for (let i = 0; i < s.length; i++) {
    let cp = s.charCodeAt(i);
    if (cp >= 0xd800 && cp <= 0xdbff) {
      const next = i + 1 < s.length ? s.charCodeAt(i + 1) : 0;
      if (next >= 0xdc00 && next <= 0xdfff) {
        cp = 0x10000 + ((cp - 0xd800) << 10) + (next - 0xdc00);
        i++;
      } else {
        cp = 0xfffd;
      }
    } else if (cp >= 0xdc00 && cp <= 0xdfff) {
      cp = 0xfffd;
    }
    if (cp < 0x80) out.push(cp);
    else if (cp < 0x800) out.push(0xc0 | (cp >> 6), 0x80 | (cp & 63));
    else if (cp < 0x10000) out.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
    else out.push(0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 63), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
  }
  return Uint8Array.from(out);
}

/** murmur3_x86_32 of raw bytes. */
export function murmur3x86_32(bytes: Uint8Array, seed = 0): number {
  let h = seed >>> 0;
  const len = bytes.length;
  const blocks = len & ~3;
  for (let i = 0; i < blocks; i += 4) {
    let k = (bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24)) >>> 0;
    k = Math.imul(k, C1);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, C2);
    h ^= k;
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  let k = 0;
  switch (len & 3) {
    case 3:
      k ^= bytes[blocks + 2]! << 16;
    // falls through
    case 2:
      k ^= bytes[blocks + 1]! << 8;
    // falls through
    case 1:
      k ^= bytes[blocks]!;
      k = Math.imul(k, C1);
      k = (k << 15) | (k >>> 17);
      k = Math.imul(k, C2);
      h ^= k;
  }
  h ^= len;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Unsigned 32-bit murmur3 of the UTF-8 encoding of `s`; `seed` defaults to 0. */
export function stableHash32(s: string, seed = 0): number {
  return murmur3x86_32(utf8Bytes(s), seed);
}

/** 64 bits as 16 lowercase hex digits: two murmur3 passes with different seeds. */
export function stableHashHex64(s: string): string {
  const bytes = utf8Bytes(s);
  const a = murmur3x86_32(bytes, 0);
  const b = murmur3x86_32(bytes, 0x9747b28c);
  return a.toString(16).padStart(8, '0') + b.toString(16).padStart(8, '0');
}
