import { describe, expect, it } from 'vitest';
import { mulberry32, sequenceRandom } from './seeded-random';

describe('mulberry32', () => {
  it.each([0, 1, 42, 0xffffffff])('seed %i: reproducible, in [0, 1), roughly uniform', (seed) => {
    const a = mulberry32(seed);
    const b = mulberry32(seed);
    const xs = Array.from({ length: 10_000 }, () => a());
    expect(Array.from({ length: 10_000 }, () => b())).toEqual(xs);
    expect(Math.min(...xs)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...xs)).toBeLessThan(1);
    const buckets = new Array<number>(10).fill(0);
    for (const x of xs) buckets[Math.floor(x * 10)]!++;
    expect(Math.min(...buckets)).toBeGreaterThan(850);
    expect(Math.max(...buckets)).toBeLessThan(1150);
  });
  it('differs between seeds', () => {
    expect(mulberry32(1)()).not.toBe(mulberry32(2)());
  });
});

describe('sequenceRandom', () => {
  it('returns the values in order then throws', () => {
    const r = sequenceRandom([0.1, 0.9]);
    expect([r(), r()]).toEqual([0.1, 0.9]);
    expect(r).toThrow('asked for draw 3, only 2 given');
  });
});
