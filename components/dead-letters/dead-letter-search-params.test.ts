import { describe, it, expect } from 'vitest';
import { deadLettersHref, filterFromSearchParams } from './dead-letter-search-params';

describe('Dead letters URL', () => {
  it('reads filters, treating datetime-local values as UTC', () => {
    const r = filterFromSearchParams({ task: 'billing', from: '2026-11-20T10:00', status: 'pending', cursor: 'c', junk: 'x' });
    expect(r.problems).toEqual([]);
    expect(r.filter).toMatchObject({ task: 'billing', status: 'pending' });
    expect(r.filter!.from!.toISOString()).toBe('2026-11-20T10:00:00.000Z');
    expect(r.cursor).toBe('c');
  });

  it('reports bad values by field', () => {
    const r = filterFromSearchParams({ group: 'acme', to: 'soon' });
    expect(r.filter).toBeNull();
    expect(r.problems.join(' ')).toContain('group');
    expect(r.problems.join(' ')).toContain('to');
  });

  it('writes the same filter back, with a cursor or an override', () => {
    const { filter } = filterFromSearchParams({ task: 'billing', from: '2026-11-20T10:00', q: 'a b' });
    expect(deadLettersHref(filter!)).toBe('/dead-letters?task=billing&from=2026-11-20T10%3A00&q=a+b');
    expect(deadLettersHref(filter!, { cursor: 'x', task: undefined })).toBe('/dead-letters?from=2026-11-20T10%3A00&q=a+b&cursor=x');
    expect(deadLettersHref({ status: 'all' })).toBe('/dead-letters');
  });
});
