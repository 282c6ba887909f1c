import { describe, it, expect } from 'vitest';
import {
  bucketAxis,
  bucketStart,
  resolutionForRange,
  rollupWindow,
  ROLLUP_RETENTION_MS,
  TIME_RANGE_MS,
  TIME_RANGES,
  MAX_POINTS_PER_SERIES,
} from './rollup-buckets';

describe('resolutionForRange', () => {
  it.each([
    ['15m', 10],
    ['1h', 10],
    ['6h', 60],
    ['24h', 300],
    ['7d', 3600],
  ] as const)('%s reads %is buckets', (range, res) => {
    expect(resolutionForRange(TIME_RANGE_MS[range])).toBe(res);
  });

  it('every picker range gets a resolution kept at least that long and ≤ the point cap', () => {
    for (const r of TIME_RANGES) {
      const res = resolutionForRange(TIME_RANGE_MS[r]);
      expect(ROLLUP_RETENTION_MS[res]).toBeGreaterThanOrEqual(TIME_RANGE_MS[r]);
      expect(TIME_RANGE_MS[r] / (res * 1000)).toBeLessThanOrEqual(MAX_POINTS_PER_SERIES);
    }
  });

  it.each([
    [30_000, 10],
    [4_000_000, 10],
    [4_100_000, 60], // > 400 × 10 s
    [400 * 86_400_000, 3600], // beyond every retention: coarsest
  ])('%i ms → %i s', (ms, res) => expect(resolutionForRange(ms)).toBe(res));

  it.each([0, -1, NaN, Infinity])('rejects %s', (ms) => expect(() => resolutionForRange(ms)).toThrow(RangeError));
});

describe('bucketStart', () => {
  it.each([
    [0, 10, 0],
    [9_999, 10, 0],
    [10_000, 10, 10_000],
    [Date.UTC(2026, 0, 1, 12, 34, 56, 789), 60, Date.UTC(2026, 0, 1, 12, 34)],
    [Date.UTC(2026, 0, 1, 12, 34, 56), 3600, Date.UTC(2026, 0, 1, 12)],
    [-1, 10, -10_000],
  ])('bucketStart(%i, %i) = %i', (at, res, want) => expect(bucketStart(at, res)).toBe(want));

  it('rejects bad input', () => {
    expect(() => bucketStart(NaN, 10)).toThrow(RangeError);
    expect(() => bucketStart(0, 0)).toThrow(RangeError);
    expect(() => bucketStart(0, 1.5)).toThrow(RangeError);
  });
});

describe('bucketAxis', () => {
  it('covers the range from the bucket holding its start to the open bucket', () => {
    const now = Date.UTC(2026, 0, 1, 12, 0, 25);
    const axis = bucketAxis(now, 60_000, 10);
    expect(axis[0]).toBe(Date.UTC(2026, 0, 1, 11, 59, 20));
    expect(axis.at(-1)).toBe(Date.UTC(2026, 0, 1, 12, 0, 20));
    expect(axis).toHaveLength(7);
    expect(new Set(axis.slice(1).map((t, i) => t - axis[i]!))).toEqual(new Set([10_000]));
  });

  it('has range ÷ resolution (+1) points for every picker range', () => {
    const now = Date.UTC(2026, 0, 1, 0, 0, 0);
    for (const r of TIME_RANGES) {
      const res = resolutionForRange(TIME_RANGE_MS[r]);
      expect(bucketAxis(now, TIME_RANGE_MS[r], res)).toHaveLength(TIME_RANGE_MS[r] / (res * 1000) + 1);
    }
  });
});

describe('rollupWindow', () => {
  const now = Date.UTC(2026, 0, 1, 12, 0, 0);
  it('first run: from the retention horizon', () => {
    expect(rollupWindow(now, null, 10, 30_000)).toEqual({ fromMs: now - ROLLUP_RETENTION_MS[10], toMs: now });
  });
  it('later runs: from the cursor, moved back by the lateness allowance, floored to a bucket', () => {
    const cursor = now - 5_000;
    expect(rollupWindow(now, cursor, 10, 30_000).fromMs).toBe(bucketStart(now - 30_000, 10));
    expect(rollupWindow(now, cursor, 3600, 30_000).fromMs).toBe(Date.UTC(2026, 0, 1, 11));
  });
  it('an old cursor (service was down) catches up, but not beyond retention', () => {
    expect(rollupWindow(now, now - 3600_000, 10, 30_000).fromMs).toBe(now - 3600_000);
    expect(rollupWindow(now, now - 10 * 86_400_000, 10, 30_000).fromMs).toBe(now - ROLLUP_RETENTION_MS[10]);
  });
  it('rejects a negative lateness', () => expect(() => rollupWindow(now, null, 10, -1)).toThrow(RangeError));
});
