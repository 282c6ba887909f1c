import { describe, it, expect } from 'vitest';
import { hasRateLimit, routingOf, thresholdsOf } from './stored-definition';

describe('thresholdsOf', () => {
  const defaults = thresholdsOf(undefined);
  it.each([
    ['undefined', undefined],
    ['null', null],
    ['no thresholds', { name: 'x' }],
    ['invalid thresholds', { thresholds: { depth: { warning: 10, critical: 5 } } }],
  ])('%s → defaults', (_n, def) => expect(thresholdsOf(def)).toEqual(defaults));
  it('defaults match the seed table', () => {
    expect(defaults).toEqual({
      depth: { warning: 1000, critical: 5000 },
      imbalance: { warning: 2, critical: 5 },
      retryRate: { warning: 0.1, critical: 0.25 },
      dlqRate: { warning: 0.01, critical: 0.05 },
      p99LatencyMs: { warning: 5000, critical: 30_000 },
    });
  });
  it('keeps stored values and fills missing metrics', () => {
    const t = thresholdsOf({ thresholds: { depth: { warning: 10, critical: 50 } } });
    expect(t.depth).toEqual({ warning: 10, critical: 50 });
    expect(t.imbalance).toEqual(defaults.imbalance);
  });
});

describe('routingOf', () => {
  it.each([
    [undefined, { strategy: 'round-robin' }],
    [{ routing: { strategy: 'hash', keyPath: 'tenant' } }, { strategy: 'hash', keyPath: 'tenant' }],
    [{ routing: 'nonsense' }, { strategy: 'round-robin' }],
  ])('%j → %j', (def, want) => expect(routingOf(def)).toEqual(want));
});

describe('hasRateLimit', () => {
  it.each([
    ['undefined → false', undefined, false],
    ['null → false', null, false],
    ['a string → false', 'rate', false],
    ['no rate → false', { name: 'x', groups: [{ name: 'tenant', limit: 5 }] }, false],
    ['groups not a list → false', { groups: { rate: {} } }, false],
    ['rate null → false', { rate: null, groups: [null, { name: 'g', rate: null }] }, false],
    ['its own rate → true', { rate: { limit: 5, per: 1000, burst: 0 } }, true],
    ['a group\'s rate → true', { groups: [{ name: 'a' }, { name: 'tenant', rate: { limit: 5, per: 1000, burst: 0, overrides: {} } }] }, true],
  ])('%s', (_n, def, want) => expect(hasRateLimit(def)).toBe(want));
});
