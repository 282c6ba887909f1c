import { describe, it, expect } from 'vitest';
import { durationStep, firstDataAt, fitRange, fitTimeDomain, niceStep, peakOf, plotHeightOf, thresholdLabelLayout, yScale } from './chart-scale';

const MIN = 60_000;
const H = 3_600_000;

describe('fitRange', () => {
  it.each([
    ['7d', 2 * MIN, '15m'],
    ['7d', 40 * MIN, '1h'],
    ['7d', 5 * H, '6h'],
    ['7d', 20 * H, '24h'],
    ['7d', 4 * 24 * H, '7d'], // more than half of the range: as asked
    ['1h', 2 * MIN, '15m'],
    ['1h', 31 * MIN, '1h'],
    ['15m', 1 * MIN, '15m'], // nothing smaller
    ['24h', null, '24h'], // no data: as asked
  ] as const)('%s with %s ms of data → %s', (asked, span, want) => expect(fitRange(asked, span)).toBe(want));
});

describe('fitTimeDomain', () => {
  const to = 10 * H;
  it('keeps the range when the data covers it', () => expect(fitTimeDomain(to - H, to, to - H, 10_000)).toEqual({ from: to - H, to, fitted: false }));
  it('keeps the range when there is no data', () => expect(fitTimeDomain(to - H, to, null, 10_000)).toEqual({ from: to - H, to, fitted: false }));
  it('starts one bucket before the first data', () => expect(fitTimeDomain(to - H, to, to - 10 * MIN, 10_000)).toEqual({ from: to - 10 * MIN - 10_000, to, fitted: true }));
  it('never spans less than 2 minutes / 6 buckets', () => {
    expect(fitTimeDomain(to - H, to, to - 10_000, 10_000)).toEqual({ from: to - 2 * MIN, to, fitted: true });
    expect(fitTimeDomain(to - 6 * H, to, to - MIN, 60_000)).toEqual({ from: to - 6 * MIN, to, fitted: true });
  });
});

describe('niceStep / durationStep', () => {
  it.each([
    [0.3, 0.5],
    [1, 1],
    [1.1, 2],
    [2.5, 5],
    [6.5, 10],
    [13, 20],
    [0.065, 0.1],
    [0.013, 0.02],
    [1500, 2000],
    [0, 1],
  ])('niceStep(%s) = %s', (raw, want) => expect(niceStep(raw)).toBe(want));
  it.each([
    [300, 500],
    [1200, 2000],
    [12_000, 15_000],
    [40_000, 60_000],
    [100_000, 120_000],
    [4 * H, 6 * H],
  ])('durationStep(%s) = %s', (raw, want) => expect(durationStep(raw)).toBe(want));
});

describe('yScale', () => {
  const th = (warning: number, critical: number) => [
    { name: 'warning' as const, value: warning },
    { name: 'critical' as const, value: critical },
  ];
  it('a depth of 8 against 1,000 / 6,000: scaled to the data, both lines off-scale', () => {
    const s = yScale(8, 'count', th(1000, 6000));
    expect(s.domain).toEqual([0, 8]);
    expect(s.ticks).toEqual([0, 2, 4, 6, 8]);
    expect(s.shown).toEqual([]);
    expect(s.offScale.map((t) => t.name)).toEqual(['warning', 'critical']);
  });
  it('a depth of 800 brings the 1,000 warning in, not the 6,000 critical', () => {
    const s = yScale(800, 'count', th(1000, 6000));
    expect(s.ticks).toEqual([0, 500, 1000, 1500]);
    expect(s.shown.map((t) => t.name)).toEqual(['warning']);
    expect(s.offScale.map((t) => t.name)).toEqual(['critical']);
  });
  it('percent ticks are 1-2-5 (no 6.5 / 13 / 20 / 26 %)', () => {
    const s = yScale(0.26, 'percent', th(0.05, 0.2));
    expect(s.ticks).toEqual([0, 0.1, 0.2, 0.3]);
    expect(s.shown.map((t) => t.name)).toEqual(['warning', 'critical']);
  });
  it('all zero: up to the warning line, which sits below the top', () => {
    const s = yScale(0, 'percent', th(0.05, 0.2));
    expect(s.domain[1]).toBeGreaterThan(0.05);
    expect(s.shown.map((t) => t.name)).toEqual(['warning']);
  });
  it('no data and no thresholds: a small floor', () => expect(yScale(null, 'count').ticks).toEqual([0, 1, 2, 3, 4]));
  it('counts step by whole numbers', () => expect(yScale(2, 'count').ticks).toEqual([0, 1, 2]));
  it('durations step on clock units', () => {
    expect(yScale(95_000, 'ms', th(30_000, 120_000)).ticks).toEqual([0, 30_000, 60_000, 90_000, 120_000, 150_000]);
    expect(yScale(1_700, 'ms').ticks).toEqual([0, 500, 1000, 1500, 2000]);
  });
  it('a threshold exactly at the nice top gets a step of room', () => {
    const s = yScale(2, 'ratio', th(4, 8));
    expect(s.domain[1]).toBeGreaterThan(4);
    expect(s.shown.map((t) => t.name)).toEqual(['warning']);
  });
});

describe('peakOf / firstDataAt', () => {
  const rows = [
    { t: 1, a: null, b: null },
    { t: 2, a: 3, b: null },
    { t: 3, a: 1, b: 7 },
  ];
  it('peak over keys', () => expect(peakOf(rows, ['a', 'b'])).toBe(7));
  it('peak of nothing', () => expect(peakOf(rows.slice(0, 1), ['a'])).toBeNull());
  it('first bucket with data', () => expect(firstDataAt(rows, ['a', 'b'])).toBe(2));
  it('no data', () => expect(firstDataAt(rows.slice(0, 1), ['a'])).toBeNull());
});

describe('thresholdLabelLayout: labels that would print over each other', () => {
  const both = [{ name: 'warning' as const }, { name: 'critical' as const }];
  const cases: { name: string; t: { warning: number; critical: number }; domain: [number, number]; shown?: typeof both; offScale?: boolean; merged: boolean; below?: [boolean, boolean] }[] = [
    { name: 'DLQ 1% and 5% on a 0–100% scale: 5.6 px apart → merged', t: { warning: 0.01, critical: 0.05 }, domain: [0, 1], merged: true },
    { name: 'DLQ 1% and 5% on a 0–8% scale: far apart', t: { warning: 0.01, critical: 0.05 }, domain: [0, 0.08], merged: false },
    { name: 'exactly one label height apart: not merged', t: { warning: 0, critical: 13 }, domain: [0, 140], merged: false },
    { name: 'only one line shown: nothing to merge', t: { warning: 0.01, critical: 0.05 }, domain: [0, 1], shown: [{ name: 'warning' as never }], merged: false },
    { name: 'warning = critical is labelled by its own rule', t: { warning: 0, critical: 0 }, domain: [0, 10], merged: false },
    { name: 'a line in the top strip while another is off-scale: label below', t: { warning: 95, critical: 500 }, domain: [0, 100], shown: [{ name: 'warning' as never }], offScale: true, merged: false, below: [true, false] },
    { name: 'top strip but nothing off-scale: above as usual', t: { warning: 95, critical: 98 }, domain: [0, 100], merged: true, below: [false, false] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const r = thresholdLabelLayout(c.t, c.domain, c.shown ?? both, c.offScale ?? false, 190);
      expect(r.merged).toBe(c.merged);
      if (c.below) expect([r.below.warning, r.below.critical]).toEqual(c.below);
    });
  }
  it('plot height: the figure less padding, margin and the x-axis', () => expect(plotHeightOf(190)).toBe(140));
});
