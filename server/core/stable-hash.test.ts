import { describe, expect, it } from 'vitest';
import { stableHash32, stableHashHex64, utf8Bytes } from './stable-hash';

describe('stableHash32 (murmur3_x86_32 over UTF-8)', () => {
  // Published reference vectors of MurmurHash3_x86_32.
  it.each([
    { s: '', seed: 0, expected: 0 },
    { s: '', seed: 1, expected: 0x514e28b7 },
    { s: '', seed: 0xffffffff, expected: 0x81f16f39 },
    { s: 'test', seed: 0, expected: 0xba6bd213 },
    { s: 'abc', seed: 0, expected: 0xb3dd93fa },
    { s: 'Hello, world!', seed: 0, expected: 0xc0363e43 },
    { s: 'Hello, world!', seed: 0x9747b28c, expected: 0x24884cba },
    { s: 'aaaa', seed: 0x9747b28c, expected: 0x5a97808a },
    { s: 'ππππππππ', seed: 0x9747b28c, expected: 0xd58063c1 },
    { s: 'The quick brown fox jumps over the lazy dog', seed: 0, expected: 0x2e4ff723 },
  ])('$s (seed $seed) → $expected', ({ s, seed, expected }) => {
    expect(stableHash32(s, seed)).toBe(expected);
  });

  it.each(['', 'a', 'ab', 'abc', 'abcd', 'abcde', 'tenant-🚀', 'x'.repeat(1000)])('is an unsigned 32-bit integer for %j', (s) => {
    const h = stableHash32(s);
    expect(Number.isInteger(h)).toBe(true);
    expect(h).toBeGreaterThanOrEqual(0);
    expect(h).toBeLessThanOrEqual(0xffffffff);
    expect(stableHash32(s)).toBe(h);
  });

  it.each(['a\uD800b', '\uDC00', '😀é中', 'x\uD83D', 'plain', ''])('encodes %j exactly as TextEncoder does', (s) => {
    expect([...utf8Bytes(s)]).toEqual([...new TextEncoder().encode(s)]);
  });

  it('tells near-identical keys apart', () => {
    expect(stableHash32('tenant-1')).not.toBe(stableHash32('tenant-2'));
    expect(stableHash32('1')).not.toBe(stableHash32('01'));
  });
});

describe('stableHashHex64', () => {
  it.each(['', 'a', 'error'])('is 16 lowercase hex digits for %j', (s) => {
    expect(stableHashHex64(s)).toMatch(/^[0-9a-f]{16}$/);
  });
  it('starts with the seed-0 hash', () => {
    expect(stableHashHex64('test').slice(0, 8)).toBe('ba6bd213');
    expect(stableHashHex64('Hello, world!').slice(8)).toBe('24884cba');
  });
});
