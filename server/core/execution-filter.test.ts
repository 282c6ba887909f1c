import { describe, it, expect } from 'vitest';
import {
  EXECUTION_STATES,
  executionFilterSchema,
  executionFilterToSearchParams,
  filterIsIndexBounded,
  searchParamsToExecutionFilterInput,
  toExecutionQuery,
} from './execution-filter';

describe('executionFilterSchema', () => {
  it('accepts every state and the documented shapes', () => {
    for (const state of EXECUTION_STATES) expect(executionFilterSchema.parse({ state }).state).toBe(state);
    expect(executionFilterSchema.parse({ group: 'tenant=a=b', payload: 'customer.id=42', id: '17' })).toEqual({ group: 'tenant=a=b', payload: 'customer.id=42', id: 17 });
  });

  it.each([
    [{ state: 'cancelled' }, 'state'],
    [{ group: 'Tenant=acme' }, 'group'],
    [{ group: 'tenant=' }, 'group'],
    [{ stream: 'x'.repeat(201) }, 'stream'],
    [{ stream: 'a\u0000' }, 'stream'],
    [{ idempotencyKey: 'a\uDC00' }, 'idempotencyKey'],
    [{ payload: 'a..b=1' }, 'payload'],
    [{ payload: 'novalue' }, 'payload'],
    [{ id: '1.5' }, 'id'],
    [{ id: '0' }, 'id'],
    [{ finishedFrom: '2026-01-02', finishedTo: '2026-01-01' }, 'finishedTo'],
    [{ enqueuedFrom: 'yesterday' }, 'enqueuedFrom'],
  ])('refuses %j on %s', (input, field) => {
    const r = executionFilterSchema.safeParse(input);
    expect(r.success).toBe(false);
    expect(r.error!.issues.map((i) => i.path.join('.'))).toContain(field);
  });

  it('refuses unknown fields', () => {
    expect(executionFilterSchema.safeParse({ tsak: 'x' }).success).toBe(false);
  });
});

describe('URL round trip and the SQL form', () => {
  it('a filter survives search params', () => {
    const f = executionFilterSchema.parse({ task: 'send-email', state: 'queued', group: 'tenant=acme', enqueuedFrom: '2026-11-24T10:00:00Z', payload: 'to.domain=a.com' });
    const back = executionFilterSchema.parse(searchParamsToExecutionFilterInput(executionFilterToSearchParams(f)));
    expect(back).toEqual(f);
  });

  it('takes group and payload apart; knows which filters an index bounds', () => {
    const f = executionFilterSchema.parse({ group: 'tenant=acme', payload: 'customer.id=42' });
    expect(toExecutionQuery(f)).toEqual({ groupKey: 'tenant=acme', payloadMatch: { path: ['customer', 'id'], value: '42' } });
    expect(filterIsIndexBounded(f)).toBe(false);
    expect(filterIsIndexBounded(executionFilterSchema.parse({ state: 'running', group: 'tenant=a' }))).toBe(true);
    expect(filterIsIndexBounded(executionFilterSchema.parse({ idempotencyKey: 'k' }))).toBe(true);
  });
});
