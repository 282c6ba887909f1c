import { describe, expect, it } from 'vitest';
import { drainForecastMs, imbalanceRatio, median, percentile, perSecond, rate } from './metrics';

describe('imbalanceRatio (max ÷ mean)', () => {
  it.each([
    { depths: [], expected: 1 },
    { depths: [0], expected: 1 },
    { depths: [0, 0, 0, 0], expected: 1 },
    { depths: [7], expected: 1 },
    { depths: [5, 5, 5, 5], expected: 1 },
    { depths: [10, 0, 0, 0], expected: 4 }, // everything on one of 4 = P
    { depths: [2, 1, 1, 0], expected: 2 },
    { depths: [3, 1], expected: 1.5 },
    { depths: [1001, 999], expected: 1.001 },
  ])('$depths → $expected', ({ depths, expected }) => {
    expect(imbalanceRatio(depths)).toBeCloseTo(expected, 10);
  });
  it.each([[[1, -1]], [[Number.NaN]], [[Number.POSITIVE_INFINITY, 1]]])('refuses %j', (depths) => {
    expect(() => imbalanceRatio(depths)).toThrow('must be a finite number ≥ 0');
  });
});

describe('rate', () => {
  it.each([
    { n: 0, d: 0, expected: null },
    { n: 5, d: 0, expected: null },
    { n: 0, d: 10, expected: 0 },
    { n: 1, d: 10, expected: 0.1 },
    { n: 10, d: 10, expected: 1 },
    { n: 1, d: 3, expected: 1 / 3 },
  ])('$n / $d → $expected', ({ n, d, expected }) => {
    expect(rate(n, d)).toBe(expected);
  });
  it.each([
    { n: -1, d: 1 },
    { n: 1, d: -1 },
    { n: Number.NaN, d: 1 },
    { n: 1, d: Number.POSITIVE_INFINITY },
  ])('refuses $n / $d', ({ n, d }) => {
    expect(() => rate(n, d)).toThrow(RangeError);
  });
});

describe('perSecond', () => {
  it.each([
    { count: 0, windowMs: 0, expected: null },
    { count: 50, windowMs: 5000, expected: 10 },
    { count: 1, windowMs: 250, expected: 4 },
    { count: 0, windowMs: 1000, expected: 0 },
  ])('$count over $windowMs ms → $expected/s', ({ count, windowMs, expected }) => {
    expect(perSecond(count, windowMs)).toBe(expected);
  });
  it('refuses negative windows', () => {
    expect(() => perSecond(1, -5)).toThrow('windowMs must be');
  });
});

describe('percentile (nearest rank)', () => {
  const hundred = Array.from({ length: 100 }, (_, i) => 100 - i); // 100..1, unsorted
  it.each([
    { values: [], p: 50, expected: null },
    { values: [42], p: 0, expected: 42 },
    { values: [42], p: 99, expected: 42 },
    { values: [42], p: 100, expected: 42 },
    { values: [3, 1, 2], p: 0, expected: 1 },
    { values: [3, 1, 2], p: 33, expected: 1 },
    { values: [3, 1, 2], p: 34, expected: 2 },
    { values: [3, 1, 2], p: 50, expected: 2 },
    { values: [3, 1, 2], p: 100, expected: 3 },
    { values: hundred, p: 50, expected: 50 },
    { values: hundred, p: 99, expected: 99 },
    { values: hundred, p: 99.5, expected: 100 },
    { values: [15, 20, 35, 40, 50], p: 30, expected: 20 },
    { values: [15, 20, 35, 40, 50], p: 40, expected: 20 },
    { values: [15, 20, 35, 40, 50], p: 50, expected: 35 },
    { values: [-5, 0, 5], p: 1, expected: -5 },
  ])('p$p of $values.length values → $expected', ({ values, p, expected }) => {
    expect(percentile(values, p)).toBe(expected);
  });
  it('does not sort the caller\'s array', () => {
    const v = [3, 1, 2];
    percentile(v, 50);
    expect(v).toEqual([3, 1, 2]);
  });
  it.each([-1, 101, Number.NaN])('refuses p = %s', (p) => {
    expect(() => percentile([1], p)).toThrow('percentile must be within [0, 100]');
  });
  it('refuses NaN samples', () => {
    expect(() => percentile([1, Number.NaN], 50)).toThrow('NaN');
  });
});

describe('drainForecastMs', () => {
  it.each([
    { depth: 0, rate: 0, expected: 0 },
    { depth: 0, rate: null, expected: 0 },
    { depth: 100, rate: 10, expected: 10_000 },
    { depth: 1, rate: 3, expected: 334 },
    { depth: 100, rate: 0, expected: null },
    { depth: 100, rate: -5, expected: null },
    { depth: 100, rate: null, expected: null },
    { depth: 100, rate: Number.NaN, expected: null },
  ])('depth $depth draining at $rate/s → $expected ms', ({ depth, rate: r, expected }) => {
    expect(drainForecastMs(depth, r)).toBe(expected);
  });
  it('refuses a negative depth', () => {
    expect(() => drainForecastMs(-1, 5)).toThrow('depth must be');
  });
});

describe('median', () => {
  it.each([
    { values: [], expected: null },
    { values: [4], expected: 4 },
    { values: [4, 1], expected: 2.5 },
    { values: [9, 1, 5], expected: 5 },
    { values: [0, 0, 0, 100], expected: 0 },
  ])('$values → $expected', ({ values, expected }) => {
    expect(median(values)).toBe(expected);
  });
});
