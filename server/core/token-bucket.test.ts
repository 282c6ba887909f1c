import { describe, it, expect } from 'vitest';
import { TokenBucket, replayBurst } from './token-bucket';

describe('TokenBucket', () => {
  it('starts full and grants at most burst at once', () => {
    const b = new TokenBucket(10, 3, 0);
    expect(b.take(5, 0)).toBe(3);
    expect(b.take(1, 0)).toBe(0);
  });

  it.each([
    // rate, burst, elapsed ms after draining, tokens expected
    [10, 5, 100, 1],
    [10, 5, 99, 0],
    [10, 5, 250, 2],
    [10, 5, 10_000, 5], // capped at burst
    [0.5, 1, 1999, 0],
    [0.5, 1, 2000, 1],
    [1000, 100, 37, 37],
  ])('rate %d/s burst %d: %d ms after draining → %d tokens', (rate, burst, ms, expected) => {
    const b = new TokenBucket(rate, burst, 0);
    b.take(burst, 0);
    expect(b.available(ms)).toBe(expected);
  });

  it('msUntil says when the next tokens come', () => {
    const b = new TokenBucket(20, 4, 0);
    b.take(4, 0);
    expect(b.msUntil(1, 0)).toBe(50);
    expect(b.msUntil(2, 0)).toBe(100);
    expect(b.msUntil(10, 0)).toBe(200); // capped at burst
    expect(b.msUntil(1, 50)).toBe(0);
  });

  it('never grants more than burst + rate·T over a simulated run', () => {
    const rate = 37;
    const burst = 3;
    const b = new TokenBucket(rate, burst, 0);
    let granted = 0;
    let t = 0;
    while (t < 60_000) {
      granted += b.take(7, t);
      t += Math.max(1, b.msUntil(1, t));
    }
    expect(granted).toBeLessThanOrEqual(burst + (rate * t) / 1000);
    expect(granted).toBeGreaterThanOrEqual((rate * t) / 1000 - 1);
  });

  it('giveBack returns unused tokens, capped at burst', () => {
    const b = new TokenBucket(1, 2, 0);
    expect(b.take(2, 0)).toBe(2);
    b.giveBack(5);
    expect(b.available(0)).toBe(2);
  });

  it('rejects nonsense', () => {
    expect(() => new TokenBucket(0, 1, 0)).toThrow(RangeError);
    expect(() => new TokenBucket(Number.POSITIVE_INFINITY, 1, 0)).toThrow(RangeError);
    expect(() => new TokenBucket(1, 0, 0)).toThrow(RangeError);
  });
});

describe('replayBurst', () => {
  it.each([
    [1, 500, 1],
    [50, 500, 5],
    [1000, 500, 100],
    [100_000, 500, 500],
  ])('rate %d, max batch %d → %d', (rate, max, expected) => {
    expect(replayBurst(rate, max)).toBe(expected);
  });
});
