import { describe, expect, it } from 'vitest';
import { baseRetryDelayMs, decideFailure, retryDelayMs, shouldRetry, type RetryPolicy } from './backoff';
import { mulberry32 } from './seeded-random';

const exp = (p: Partial<RetryPolicy> = {}): RetryPolicy => ({
  maxAttempts: 5,
  backoff: 'exponential',
  baseDelayMs: 1000,
  maxDelayMs: 60_000,
  jitter: 0,
  ...p,
});
const fixed = (p: Partial<RetryPolicy> = {}) => exp({ backoff: 'fixed', ...p });

describe('retryDelayMs', () => {
  it.each([
    // exponential, no jitter
    { retry: exp(), attempt: 1, r: 0.5, expected: 1000 },
    { retry: exp(), attempt: 2, r: 0.5, expected: 2000 },
    { retry: exp(), attempt: 3, r: 0.5, expected: 4000 },
    { retry: exp(), attempt: 6, r: 0.5, expected: 32_000 },
    { retry: exp(), attempt: 7, r: 0.5, expected: 60_000 }, // 64 000 capped
    { retry: exp(), attempt: 100, r: 0.5, expected: 60_000 },
    { retry: exp(), attempt: 5000, r: 0.5, expected: 60_000 }, // 2^4999 = Infinity → cap
    { retry: exp({ maxDelayMs: 4000 }), attempt: 3, r: 0.5, expected: 4000 }, // exactly at the cap
    { retry: exp({ baseDelayMs: 0, maxDelayMs: 0 }), attempt: 3, r: 0.5, expected: 0 },
    { retry: exp({ baseDelayMs: 0 }), attempt: 10, r: 0.5, expected: 0 },
    // fixed
    { retry: fixed(), attempt: 1, r: 0.5, expected: 1000 },
    { retry: fixed(), attempt: 9, r: 0.5, expected: 1000 },
    { retry: fixed({ baseDelayMs: 5000, maxDelayMs: 5000 }), attempt: 3, r: 0.5, expected: 5000 },
    // jitter: d·(1−j) + d·j·rand
    { retry: exp({ jitter: 0.2 }), attempt: 2, r: 0, expected: 1600 },
    { retry: exp({ jitter: 0.2 }), attempt: 2, r: 0.5, expected: 1800 },
    { retry: exp({ jitter: 0.2 }), attempt: 2, r: 0.999999, expected: 2000 },
    { retry: exp({ jitter: 1 }), attempt: 2, r: 0, expected: 0 },
    { retry: exp({ jitter: 1 }), attempt: 2, r: 0.25, expected: 500 },
    { retry: exp({ jitter: 1 }), attempt: 7, r: 0.5, expected: 30_000 }, // jitter applies after the cap
    { retry: fixed({ jitter: 0.5 }), attempt: 4, r: 0.5, expected: 750 },
    { retry: exp({ jitter: 0.3, baseDelayMs: 3 }), attempt: 1, r: 0.5, expected: 3 }, // 2.55 rounds to 3
    // misbehaving rand is clamped into [0, 1]
    { retry: exp({ jitter: 1 }), attempt: 1, r: 7, expected: 1000 },
    { retry: exp({ jitter: 1 }), attempt: 1, r: -3, expected: 0 },
    { retry: exp({ jitter: 1 }), attempt: 1, r: Number.NaN, expected: 0 },
  ])('$retry.backoff attempt $attempt (jitter $retry.jitter, rand $r) → $expected ms', ({ retry, attempt, r, expected }) => {
    expect(retryDelayMs(retry, attempt, () => r)).toBe(expected);
  });

  it('does not draw randomness when jitter is 0', () => {
    expect(
      retryDelayMs(exp(), 3, () => {
        throw new Error('drawn');
      }),
    ).toBe(4000);
  });

  it.each([
    { retry: exp({ jitter: 0.2 }), attempt: 3, lo: 3200, hi: 4000 },
    { retry: exp({ jitter: 1 }), attempt: 9, lo: 0, hi: 60_000 },
    { retry: fixed({ jitter: 0.5, baseDelayMs: 200 }), attempt: 2, lo: 100, hi: 200 },
  ])('stays within [$lo, $hi] over many draws', ({ retry, attempt, lo, hi }) => {
    const rand = mulberry32(attempt);
    for (let i = 0; i < 2000; i++) {
      const d = retryDelayMs(retry, attempt, rand);
      expect(d).toBeGreaterThanOrEqual(lo);
      expect(d).toBeLessThanOrEqual(hi);
      expect(Number.isInteger(d)).toBe(true);
    }
  });

  it.each([0, -1, 1.5, Number.NaN])('refuses attempt %s', (attempt) => {
    expect(() => retryDelayMs(exp(), attempt, () => 0)).toThrow(RangeError);
    expect(() => baseRetryDelayMs(exp(), attempt)).toThrow('attempt must be an integer ≥ 1');
  });
});

describe('shouldRetry', () => {
  it.each([
    { attempt: 1, maxAttempts: 1, expected: false },
    { attempt: 1, maxAttempts: 2, expected: true },
    { attempt: 2, maxAttempts: 3, expected: true },
    { attempt: 3, maxAttempts: 3, expected: false },
    { attempt: 4, maxAttempts: 3, expected: false },
    { attempt: 99, maxAttempts: 100, expected: true },
  ])('attempt $attempt of $maxAttempts → $expected', ({ attempt, maxAttempts, expected }) => {
    expect(shouldRetry(attempt, maxAttempts)).toBe(expected);
  });
  it.each([0, 2.5])('refuses maxAttempts %s', (maxAttempts) => {
    expect(() => shouldRetry(1, maxAttempts)).toThrow('maxAttempts must be an integer ≥ 1');
  });
});

describe('decideFailure', () => {
  it.each([
    { attempt: 1, expected: { kind: 'retry', runAt: 10_000 + 1000, delayMs: 1000 } },
    { attempt: 4, expected: { kind: 'retry', runAt: 10_000 + 8000, delayMs: 8000 } },
    { attempt: 5, expected: { kind: 'dead' } },
  ])('attempt $attempt of 5 → $expected.kind', ({ attempt, expected }) => {
    expect(decideFailure(exp(), attempt, 10_000, () => 0.5)).toEqual(expected);
  });
});
