import { describe, it, expect } from 'vitest';
import {
  confirmationMatches,
  deadLetterFilterSchema,
  filterToSearchParams,
  isEmptyFilter,
  parseGroupFilter,
  purgeConfirmationPhrase,
  searchParamsToFilterInput,
} from './dead-letter-filter';

describe('deadLetterFilterSchema', () => {
  it.each([
    [{}, true],
    [{ task: 'billing', status: 'pending' }, true],
    [{ group: 'tenant=acme' }, true],
    [{ group: 'tenant=a=b' }, true],
    [{ group: 'tenant' }, false],
    [{ group: 'Tenant=acme' }, false],
    [{ task: 'Bad Name' }, false],
    [{ fingerprint: 'a1b2c3d4e5f60718' }, true],
    [{ fingerprint: 'has space' }, false],
    [{ from: '2026-01-01T00:00:00Z', to: '2026-01-02T00:00:00Z' }, true],
    [{ from: '2026-01-02T00:00:00Z', to: '2026-01-01T00:00:00Z' }, false],
    [{ from: 'yesterday' }, false],
    [{ q: '' }, false],
    [{ status: 'dead' }, false],
    [{ unknown: 1 }, false],
  ])('%j valid=%s', (input, ok) => {
    expect(deadLetterFilterSchema.safeParse(input).success).toBe(ok);
  });

  it('reports the field that is wrong', () => {
    const r = deadLetterFilterSchema.safeParse({ from: '2026-01-02T00:00:00Z', to: '2026-01-01T00:00:00Z' });
    expect(r.success).toBe(false);
    expect(r.error!.issues[0]!.path).toEqual(['to']);
  });
});

describe('URL round trip', () => {
  it('keeps every filter field', () => {
    const f = deadLetterFilterSchema.parse({
      task: 'billing',
      fingerprint: 'abc',
      group: 'tenant=acme corp',
      stream: 'order-1',
      from: '2026-01-01T00:00:00.000Z',
      to: '2026-01-02T00:00:00.000Z',
      q: 'timeout & retry',
      status: 'pending',
    });
    const params = filterToSearchParams(f);
    const back = deadLetterFilterSchema.parse(searchParamsToFilterInput(new URLSearchParams(params.toString())));
    expect(back).toEqual(f);
  });

  it('leaves defaults out of the URL', () => {
    expect(filterToSearchParams(deadLetterFilterSchema.parse({})).toString()).toBe('');
  });

  it('reads Next-style search param records', () => {
    expect(searchParamsToFilterInput({ task: ['a', 'b'], cursor: 'x', q: '' })).toEqual({ task: 'a' });
  });
});

describe('helpers', () => {
  it('parses group filters', () => {
    expect(parseGroupFilter('tenant=a=b')).toEqual({ name: 'tenant', key: 'a=b' });
    expect(() => parseGroupFilter('nope')).toThrow(RangeError);
  });
  it('knows an empty filter', () => {
    expect(isEmptyFilter(deadLetterFilterSchema.parse({}))).toBe(true);
    expect(isEmptyFilter(deadLetterFilterSchema.parse({ status: 'pending' }))).toBe(false);
  });
  it('matches the confirmation phrase exactly (case and spacing forgiven)', () => {
    expect(purgeConfirmationPhrase(42)).toBe('purge 42');
    expect(confirmationMatches('  Purge   42 ', 42)).toBe(true);
    expect(confirmationMatches('purge 41', 42)).toBe(false);
    expect(confirmationMatches('purge', 42)).toBe(false);
  });
});
