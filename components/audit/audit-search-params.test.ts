import { describe, it, expect } from 'vitest';
import { auditHref, auditInputFromSearchParams } from './audit-search-params';

describe('audit search params', () => {
  it('reads filters, treats blanks as unset and times as UTC', () => {
    const { input, invalid } = auditInputFromSearchParams({
      actor: ' alice ',
      action: '',
      targetType: 'user',
      from: '2026-11-01T10:30',
      to: '2026-11-02T00:00:00Z',
      cursor: '42',
    });
    expect(invalid).toEqual([]);
    expect(input).toEqual({
      limit: 50,
      actor: 'alice',
      targetType: 'user',
      cursor: '42',
      from: new Date('2026-11-01T10:30:00Z'),
      to: new Date('2026-11-02T00:00:00Z'),
    });
  });

  it('reports a bad date instead of guessing', () => {
    expect(auditInputFromSearchParams({ from: 'yesterday' }).invalid).toEqual(['from: "yesterday" is not a date']);
  });

  it('builds next-page links that keep the filters', () => {
    expect(auditHref({ actor: 'bob', cursor: '9', junk: 'x' }, '5')).toBe('/audit?actor=bob&cursor=5');
    expect(auditHref({})).toBe('/audit');
  });
});
