import { describe, it, expect } from 'vitest';
import { cancelConfirmationPhrase, cancelFilterForListFilter, cancelFilterQueries, executionCancelFilterSchema, executionIdSchema, isStorableText, parseStateList } from './execution-cancel-filter';
import { confirmationMatches } from './dead-letter-filter';
import { executionFilterSchema } from './execution-filter';

describe('executionCancelFilterSchema', () => {
  it.each([
    [{ task: 'send-email' }, true],
    [{ task: 'send-email', states: ['running'] }, true],
    [{ task: 'send-email', group: 'tenant=acme', stream: 'order-1' }, true],
    [{ task: 'send-email', from: '2026-01-01T00:00:00Z', to: '2026-01-02T00:00:00Z' }, true],
    [{}, false],
    [{ task: 'send-email', states: [] }, false],
    [{ task: 'send-email', states: ['succeeded'] }, false],
    [{ task: 'send-email', states: ['queued', 'queued'] }, false],
    [{ task: 'send-email', group: 'tenant' }, false],
    [{ task: 'send-email', group: 'tenant=a\u0000' }, false],
    [{ task: 'send-email', stream: 'a\uD800' }, false],
    [{ task: 'send-email', from: '2026-01-02T00:00:00Z', to: '2026-01-01T00:00:00Z' }, false],
    [{ task: 'send-email', extra: 1 }, false],
  ])('%j valid=%s', (input, ok) => {
    expect(executionCancelFilterSchema.safeParse(input).success).toBe(ok);
  });

  it('defaults to the backlog (running is opt-in)', () => {
    expect(executionCancelFilterSchema.parse({ task: 't' }).states).toEqual(['queued', 'scheduled', 'blocked', 'spilled']);
  });
});

describe('executionIdSchema', () => {
  it.each([
    [1, 1],
    ['42', 42],
    [Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  ])('%j → %j', (v, out) => expect(executionIdSchema.parse(v)).toBe(out));
  it.each([0, -1, 1.5, '1e3', ' 4', 'abc', '', null, {}, '99999999999999999', Number.MAX_SAFE_INTEGER + 2])('%j is refused', (v) => {
    expect(executionIdSchema.safeParse(v).success).toBe(false);
  });
});

describe('helpers', () => {
  it('storable text refuses NUL and lone surrogates, keeps pairs', () => {
    expect(isStorableText('tenant=acme 😀')).toBe(true);
    expect(isStorableText('a\u0000b')).toBe(false);
    expect(isStorableText('\uD83D')).toBe(false);
    expect(isStorableText('\uDE00x')).toBe(false);
  });
  it('the typed phrase, case and spacing forgiven', () => {
    expect(cancelConfirmationPhrase(1200)).toBe('cancel 1200');
    expect(confirmationMatches('  Cancel   1200 ', 1200, cancelConfirmationPhrase(1200))).toBe(true);
    expect(confirmationMatches('purge 1200', 1200, cancelConfirmationPhrase(1200))).toBe(false);
    expect(confirmationMatches('cancel 120', 1200, cancelConfirmationPhrase(1200))).toBe(false);
  });
  it('parses a state list', () => {
    expect(parseStateList('queued, blocked,,running ')).toEqual(['queued', 'blocked', 'running']);
  });
});

describe('the cancel filter as the list filter', () => {
  it('one list query per state, with the same group, stream and enqueue window', () => {
    const f = executionCancelFilterSchema.parse({ task: 'mail', states: ['queued', 'spilled'], group: 'tenant=acme', stream: 's1', from: '2026-01-01T00:00:00Z', to: '2026-01-02T00:00:00Z' });
    expect(cancelFilterQueries(f)).toEqual([
      { task: 'mail', state: 'queued', groupKey: 'tenant=acme', stream: 's1', enqueuedFrom: new Date('2026-01-01T00:00:00Z'), enqueuedTo: new Date('2026-01-02T00:00:00Z') },
      { task: 'mail', state: 'spilled', groupKey: 'tenant=acme', stream: 's1', enqueuedFrom: new Date('2026-01-01T00:00:00Z'), enqueuedTo: new Date('2026-01-02T00:00:00Z') },
    ]);
    expect(cancelFilterQueries(executionCancelFilterSchema.parse({ task: 'mail' })).map((q) => q.state)).toEqual(['queued', 'scheduled', 'blocked', 'spilled']);
  });

  it.each([
    [{ task: 'mail', state: 'blocked', group: 'tenant=a' }, { filter: { task: 'mail', states: ['blocked'], group: 'tenant=a' } }],
    [{ task: 'mail' }, { filter: { task: 'mail' } }],
    [{ state: 'queued' }, { reason: 'Pick a task first: cancel acts on one task at a time' }],
    [{ task: 'mail', state: 'dead' }, { reason: 'dead executions are finished: nothing to cancel' }],
    [{ task: 'mail', payload: 'a=1', id: 4 }, { reason: 'Cancel matching takes task, state, group, stream and enqueue time; remove id, payload' }],
  ])('list filter %j → %j', (list, want) => {
    expect(cancelFilterForListFilter(executionFilterSchema.parse(list))).toEqual(want);
  });
});
