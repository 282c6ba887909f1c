import { describe, it, expect } from 'vitest';
import { overviewHref, overviewParams, overviewQueryInput } from './overview-search-params';

const from = (q: string) => {
  const sp = new URLSearchParams(q);
  return overviewParams((k) => sp.get(k));
};

describe('overview URL state', () => {
  it.each([
    ['', { range: '1h', live: true }],
    ['range=6h&task=emails', { range: '6h', task: 'emails', live: true }],
    ['range=2y&task=Bad%20Name&live=off', { range: '1h', live: false }],
  ])('%s → %j', (q, want) => expect(from(q)).toEqual(want));

  it('round-trips through the href and omits defaults', () => {
    const p = { range: '24h' as const, task: 'emails', live: false };
    expect(overviewHref(p)).toBe('/?range=24h&task=emails&live=off');
    expect(from(overviewHref(p).slice(2))).toEqual(p);
    expect(overviewHref({ range: '1h', live: true })).toBe('/');
  });

  it('query input carries only range and task', () => {
    expect(overviewQueryInput({ range: '6h', task: 'a', live: false })).toEqual({ range: '6h', task: 'a' });
    expect(overviewQueryInput({ range: '6h', live: true })).toEqual({ range: '6h' });
  });
});
