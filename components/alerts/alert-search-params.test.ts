import { describe, it, expect } from 'vitest';
import { alertListQueryInput, alertParams, alertsHref } from './alert-search-params';

const from = (q: string) => {
  const sp = new URLSearchParams(q);
  return alertParams((k) => sp.get(k));
};

describe('alerts URL state', () => {
  it.each([
    ['', { status: 'open' }],
    ['status=resolved&task=emails&rule=hotKey&severity=critical&alert=12', { status: 'resolved', task: 'emails', rule: 'hotKey', severity: 'critical', alert: 12 }],
    ['status=nope&rule=bogus&severity=meh&alert=-3&task=UPPER', { status: 'open' }],
  ])('%s → %j', (q, want) => expect(from(q)).toEqual(want));

  it('round-trips and leaves the selected alert out of the list query', () => {
    const p = { status: 'all' as const, task: 't1', rule: 'depth' as const, alert: 5 };
    expect(from(alertsHref(p).split('?')[1]!)).toEqual(p);
    expect(alertListQueryInput(p)).toEqual({ status: 'all', task: 't1', rule: 'depth' });
    expect(alertsHref({ status: 'open' })).toBe('/alerts');
  });
});
