import { describe, expect, it } from 'vitest';
import {
  rateWakeMs,
  admit,
  chargeTat,
  effectiveKeyRate,
  emissionIntervalMs,
  formatRate,
  formatWait,
  maxInAnyWindow,
  maxPerWindow,
  nextSlotInMs,
  rateAllowance,
  rateCost,
  type RateSpec,
} from './rate-limit';

const tenPerSec: RateSpec = { limit: 10, per: 1000, burst: 0 };
const tenPerSecBurst3: RateSpec = { limit: 10, per: 1000, burst: 3 };

describe('GCRA arithmetic', () => {
  it.each([
    [tenPerSec, 100],
    [{ limit: 3, per: 1000, burst: 0 }, 1000 / 3],
    [{ limit: 100, per: 60_000, burst: 0 }, 600],
  ])('emission interval of %j is %f ms', (spec, t) => {
    expect(emissionIntervalMs(spec)).toBeCloseTo(t, 9);
  });

  it.each([
    // spec, tat, now → allowance (cost units that may still start; < 0 = held)
    [tenPerSec, null, 5000, 0],
    [tenPerSecBurst3, null, 5000, 3],
    [tenPerSecBurst3, 4000, 5000, 3], // TAT in the past: as full as an idle scope
    [tenPerSecBurst3, 5100, 5000, 2],
    [tenPerSecBurst3, 5300, 5000, 0],
    [tenPerSecBurst3, 5350, 5000, -0.5],
    [tenPerSec, 5100, 5000, -1],
    [tenPerSec, 5000, 5000, 0], // clock edge: TAT exactly now admits one
  ])('allowance(%j, tat %s, now %i) = %f', (spec, tat, now, out) => {
    expect(rateAllowance(spec, tat, now)).toBeCloseTo(out, 9);
  });

  it.each([
    // spec, tat, now, costs → admitted, new tat
    [tenPerSec, null, 0, [1, 1, 1], 1, 100],
    [tenPerSecBurst3, null, 0, [1, 1, 1, 1, 1, 1], 4, 400], // burst: 1 + 3 at once
    [tenPerSecBurst3, 300, 0, [1, 1], 1, 400],
    [tenPerSecBurst3, 350, 0, [1], 0, 350], // held: nothing, TAT unchanged
    [tenPerSec, 100, 100, [1, 1], 1, 200], // clock edge: the token is due exactly now
    [tenPerSec, 100, 99, [1], 0, 100], // 1 ms early: held
    // costs: admitted while the cost before it fits, then in debt by the whole cost
    [tenPerSecBurst3, null, 0, [2, 2, 2], 2, 400],
    [tenPerSec, null, 0, [25], 1, 2500], // a cost above the burst is not starved
    [tenPerSec, null, 0, [0, 0, 1, 1], 3, 100], // cost 0 is free
  ])('admit(%j, tat %s, now %i, %j) → %i, tat %s', (spec, tat, now, costs, n, newTat) => {
    expect(admit(spec, tat, now, costs)).toEqual({ admitted: n, tatMs: newTat });
  });

  it.each([
    [tenPerSec, null, 0, 0],
    [tenPerSec, 1200, 1000, 200],
    [tenPerSecBurst3, 1200, 1000, 0],
    [tenPerSecBurst3, 1500, 1000, 200],
    [tenPerSecBurst3, 500, 1000, 0],
  ])('next slot of %j at tat %s, now %i is in %i ms', (spec, tat, now, wait) => {
    expect(nextSlotInMs(spec, tat, now)).toBeCloseTo(wait, 9);
  });

  it('charges from now when the TAT is past, else from the TAT', () => {
    expect(chargeTat(tenPerSec, 100, 1000, 2)).toBe(1200);
    expect(chargeTat(tenPerSec, 1500, 1000, 2)).toBe(1700);
  });
});

describe('steady rate and window bound (a claim every 7 ms for 10 s)', () => {
  it.each([
    [tenPerSec],
    [tenPerSecBurst3],
    [{ limit: 50, per: 1000, burst: 5 }],
    [{ limit: 7, per: 1500, burst: 2 }],
  ])('%j: never above limit + burst in any window, the long-run rate is the limit', (spec) => {
    let tat: number | null = null;
    const starts: number[] = [];
    for (let now = 0; now < 10_000; now += 7) {
      const r = admit(spec, tat, now, Array(20).fill(1));
      tat = r.tatMs;
      for (let i = 0; i < r.admitted; i++) starts.push(now);
    }
    expect(maxInAnyWindow(starts, spec.per)).toBeLessThanOrEqual(maxPerWindow(spec));
    // the burst is honoured: an idle scope starts burst + 1 at once
    expect(starts.filter((s) => s === 0)).toHaveLength(spec.burst + 1);
    const expected = (10_000 / spec.per) * spec.limit + spec.burst;
    if (spec.burst > 0) expect(Math.abs(starts.length - expected)).toBeLessThanOrEqual(2);
    // burst 0: a claim that comes after the token was due loses the lateness (GCRA
    // charges from now), so polling every 7 ms gives one start per ceil(T / 7) × 7 ms
    else expect(starts.length).toBe(Math.ceil(10_000 / (Math.ceil(emissionIntervalMs(spec) / 7) * 7)));
  });
});

describe('overrides and costs', () => {
  const rate = { limit: 10, per: 1000, burst: 2, overrides: { acme: { limit: 50 }, slow: { per: 60_000, burst: 0 } } };
  it.each([
    ['other', { limit: 10, per: 1000, burst: 2 }],
    ['acme', { limit: 50, per: 1000, burst: 2 }],
    ['slow', { limit: 10, per: 60_000, burst: 0 }],
    ['constructor', { limit: 10, per: 1000, burst: 2 }],
  ])('key %s → %j', (key, spec) => {
    expect(effectiveKeyRate(rate, key)).toEqual(spec);
  });

  it.each([
    [undefined, 1],
    ['3', 1],
    [-2, 1],
    [Number.NaN, 1],
    [0, 0],
    [2.5, 2.5],
    [5e9, 1_000_000],
  ])('cost of payload value %s is %f', (v, c) => {
    expect(rateCost(v)).toBe(c);
  });
});

describe('window measure and wording', () => {
  it.each([
    [[], 1000, 0],
    [[0, 999, 1000], 1000, 2],
    [[0, 1, 2, 3, 2000], 1000, 4],
    [[0, 500, 1000, 1500], 1000, 2],
  ])('max starts of %j in a %i ms window = %i', (starts, w, n) => {
    expect(maxInAnyWindow(starts, w)).toBe(n);
  });
  it.each([
    [tenPerSec, '10/s'],
    [{ limit: 100, per: 60_000, burst: 5 }, '100/min, burst 5'],
    [{ limit: 7, per: 1500, burst: 0 }, '7 per 1500 ms'],
  ])('%j reads %s', (spec, s) => expect(formatRate(spec)).toBe(s));
  it.each([
    [1200, '1.2 s'],
    [349.2, '350 ms'],
    [0, '0 ms'],
  ])('%f ms reads %s', (ms, s) => expect(formatWait(ms)).toBe(s));
});

describe('rateWakeMs: how soon a claim cut short by a rate looks again (T/4, ≥ 5 ms)', () => {
  const g = (rate?: { limit: number; per: number; burst: number; overrides?: Record<string, { limit?: number; per?: number; burst?: number }> }) => ({
    rate: rate ? { overrides: {}, ...rate } : undefined,
  });
  it.each([
    ['no rate', { groups: [g()] }, null],
    ['a group rate of 10/s: T/4', { groups: [g({ limit: 10, per: 1000, burst: 5 })] }, 25],
    ['an override of 20/s wins', { groups: [g({ limit: 10, per: 1000, burst: 5, overrides: { acme: { limit: 20 } } })] }, 12.5],
    ["the task's own 10/min and a group's 2/s", { rate: { limit: 10, per: 60_000, burst: 0 }, groups: [g({ limit: 2, per: 1000, burst: 0 })] }, 125],
    ['never below 5 ms', { groups: [g({ limit: 10_000, per: 1000, burst: 0 })] }, 5],
  ])('%s', (_, def, want) => {
    expect(rateWakeMs(def)).toBe(want);
  });
});
