import { describe, expect, it } from 'vitest';
import { CoreError } from './errors';
import { hashPartition, leastLoadedPartition, pickPartition, randomIndex, routeBatch, type PickPartitionInput } from './routing';
import { mulberry32, sequenceRandom } from './seeded-random';
import { stableHash32 } from './stable-hash';

const noRand = () => {
  throw new Error('rand must not be called');
};
const base = { partitions: 4, counter: 0, rand: noRand };

describe('pickPartition', () => {
  it.each<{ input: Partial<PickPartitionInput>; expected: number }>([
    // round-robin
    { input: { strategy: 'round-robin', counter: 0 }, expected: 0 },
    { input: { strategy: 'round-robin', counter: 3 }, expected: 3 },
    { input: { strategy: 'round-robin', counter: 4 }, expected: 0 },
    { input: { strategy: 'round-robin', counter: 4_000_000_003 }, expected: 3 },
    { input: { strategy: 'round-robin', counter: 7, partitions: 1 }, expected: 0 },
    // hash: stableHash32(key) % P
    { input: { strategy: 'hash', key: 'acme' }, expected: stableHash32('acme') % 4 },
    { input: { strategy: 'hash', key: '東京' }, expected: stableHash32('東京') % 4 },
    { input: { strategy: 'hash', key: '42', partitions: 1024 }, expected: stableHash32('42') % 1024 },
    { input: { strategy: 'hash', key: 'anything', partitions: 1 }, expected: 0 },
    // random
    { input: { strategy: 'random', rand: () => 0 }, expected: 0 },
    { input: { strategy: 'random', rand: () => 0.2499 }, expected: 0 },
    { input: { strategy: 'random', rand: () => 0.25 }, expected: 1 },
    { input: { strategy: 'random', rand: () => 0.999999 }, expected: 3 },
    { input: { strategy: 'random', rand: () => 1 }, expected: 3 }, // misbehaving rand is clamped
    { input: { strategy: 'random', rand: () => -0.5 }, expected: 0 },
    { input: { strategy: 'random', rand: () => Number.NaN }, expected: 0 },
    // least-loaded
    { input: { strategy: 'least-loaded', depths: [5, 3, 9, 4] }, expected: 1 },
    { input: { strategy: 'least-loaded', depths: [5, 3, 9, 0] }, expected: 3 },
    { input: { strategy: 'least-loaded', depths: [0, 0, 0, 0], counter: 0 }, expected: 0 },
    { input: { strategy: 'least-loaded', depths: [0, 0, 0, 0], counter: 2 }, expected: 2 },
    { input: { strategy: 'least-loaded', depths: [1, 0, 7, 0], counter: 0 }, expected: 1 },
    { input: { strategy: 'least-loaded', depths: [1, 0, 7, 0], counter: 1 }, expected: 3 },
    { input: { strategy: 'least-loaded', depths: [1, 0, 7, 0], counter: 2 }, expected: 1 },
    { input: { strategy: 'least-loaded', depths: [9], partitions: 1 }, expected: 0 },
  ])('$input.strategy #%# → $expected', ({ input, expected }) => {
    expect(pickPartition({ ...base, strategy: 'round-robin', ...input })).toBe(expected);
  });

  it('hash: the same key always lands on the same partition; keys spread over all partitions', () => {
    const seen = new Set<number>();
    for (let i = 0; i < 400; i++) {
      const key = `customer-${i}`;
      const p = pickPartition({ ...base, strategy: 'hash', key, partitions: 8, counter: i });
      expect(pickPartition({ ...base, strategy: 'hash', key, partitions: 8, counter: i + 17 })).toBe(p);
      seen.add(p);
    }
    expect(seen.size).toBe(8);
  });

  it.each([
    { key: undefined, keyPath: 'customer.id', message: 'hash routing needs a key at "customer.id", and the execution has none', path: 'payload.customer.id' },
    { key: '', keyPath: 'customer.id', message: 'hash routing needs a key at "customer.id", and the execution has none', path: 'payload.customer.id' },
    { key: undefined, keyPath: undefined, message: 'hash routing needs a key, and the execution has none', path: 'routingKey' },
  ])('hash without a key → BAD_REQUEST naming $keyPath', ({ key, keyPath, message, path }) => {
    try {
      pickPartition({ ...base, strategy: 'hash', ...(key !== undefined ? { key } : {}), ...(keyPath ? { keyPath } : {}) });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(CoreError);
      expect((e as CoreError).code).toBe('BAD_REQUEST');
      expect((e as CoreError).message).toBe(message);
      expect((e as CoreError).fieldErrors).toEqual([{ path, message: 'required by hash routing' }]);
    }
  });

  it.each<{ input: Partial<PickPartitionInput>; error: string }>([
    { input: { partitions: 0 }, error: 'partitions must be an integer ≥ 1, got 0' },
    { input: { partitions: 2.5 }, error: 'partitions must be an integer ≥ 1, got 2.5' },
    { input: { counter: -1 }, error: 'counter must be a non-negative safe integer, got -1' },
    { input: { counter: 1.5 }, error: 'counter must be a non-negative safe integer, got 1.5' },
    { input: { strategy: 'least-loaded' }, error: 'least-loaded routing needs 4 partition depths, got none' },
    { input: { strategy: 'least-loaded', depths: [1, 2, 3] }, error: 'least-loaded routing needs 4 partition depths, got 3' },
    { input: { strategy: 'least-loaded', depths: [1, -2, 3, 4] }, error: 'partition 1 has an invalid depth -2' },
    { input: { strategy: 'least-loaded', depths: [1, Number.NaN, 3, 4] }, error: 'partition 1 has an invalid depth NaN' },
  ])('refuses bad input: $error', ({ input, error }) => {
    expect(() => pickPartition({ ...base, strategy: 'round-robin', ...input })).toThrow(error);
  });

  it('random covers all partitions roughly evenly', () => {
    const rand = mulberry32(7);
    const counts = [0, 0, 0, 0];
    for (let i = 0; i < 8000; i++) counts[pickPartition({ ...base, strategy: 'random', rand })]!++;
    for (const c of counts) expect(Math.abs(c - 2000)).toBeLessThan(200);
  });
});

describe('helpers', () => {
  it.each([
    { n: 1, r: 0.7, expected: 0 },
    { n: 10, r: 0.35, expected: 3 },
    { n: 10, r: 1, expected: 9 },
  ])('randomIndex($n, $r) = $expected', ({ n, r, expected }) => {
    expect(randomIndex(n, () => r)).toBe(expected);
  });
  it('hashPartition matches pickPartition', () => {
    expect(hashPartition('k', 16)).toBe(pickPartition({ ...base, strategy: 'hash', key: 'k', partitions: 16 }));
  });
  it('leastLoadedPartition refuses no depths', () => {
    expect(() => leastLoadedPartition([], 0)).toThrow('at least one partition depth');
  });
});

describe('routeBatch', () => {
  it.each([
    {
      name: 'round-robin continues from counterStart',
      input: { strategy: 'round-robin' as const, partitions: 3, keys: [undefined, undefined, undefined, undefined], counterStart: 2 },
      expected: [2, 0, 1, 2],
    },
    {
      name: 'least-loaded fills the emptiest partitions as it goes',
      input: { strategy: 'least-loaded' as const, partitions: 3, keys: new Array(6).fill(undefined), counterStart: 0, depths: [2, 0, 1] },
      expected: [1, 2, 1, 0, 1, 2],
    },
    {
      name: 'hash follows each key',
      input: { strategy: 'hash' as const, partitions: 4, keys: ['a', 'b', 'a'], counterStart: 0 },
      expected: [stableHash32('a') % 4, stableHash32('b') % 4, stableHash32('a') % 4],
    },
    { name: 'empty batch', input: { strategy: 'round-robin' as const, partitions: 3, keys: [], counterStart: 0 }, expected: [] },
  ])('$name', ({ input, expected }) => {
    expect(routeBatch({ ...input, rand: noRand })).toEqual(expected);
  });

  it('least-loaded spreads a burst evenly over idle partitions and leaves the input depths alone', () => {
    const depths = [0, 0, 0, 0];
    const out = routeBatch({ strategy: 'least-loaded', partitions: 4, keys: new Array(100).fill(undefined), counterStart: 0, depths, rand: noRand });
    expect([0, 1, 2, 3].map((p) => out.filter((x) => x === p).length)).toEqual([25, 25, 25, 25]);
    expect(depths).toEqual([0, 0, 0, 0]);
  });

  it('random uses one draw per execution', () => {
    expect(routeBatch({ strategy: 'random', partitions: 4, keys: [undefined, undefined], counterStart: 0, rand: sequenceRandom([0.9, 0.1]) })).toEqual([3, 0]);
  });

  it('hash with a missing key in the batch fails the batch', () => {
    expect(() => routeBatch({ strategy: 'hash', partitions: 4, keys: ['a', undefined], keyPath: 'tenant', counterStart: 0, rand: noRand })).toThrow(
      'hash routing needs a key at "tenant"',
    );
  });
});
