import { describe, expect, it } from 'vitest';
import type pg from 'pg';
import type { FinishItem } from '../db/finish-executions';
import { claimedRow } from '../../test/support/coordinator-fakes';
import { Completer, type CompletedBatch, type Refill } from './completer';

/** A pool whose every query waits until the test settles it: the writes in flight, in order. */
function fakePool() {
  const calls: { sql: string; params: unknown[]; settle: (rows: unknown[]) => void; fail: (e: Error) => void }[] = [];
  const pool = {
    query: (sql: string, params: unknown[]) =>
      new Promise((resolve, reject) => {
        calls.push({ sql, params, settle: (rows) => resolve({ rows }), fail: reject });
      }),
  } as unknown as pg.Pool;
  return { pool, calls };
}

const item = (id: number): FinishItem => ({ id, leaseToken: `lease-${id}`, outcome: 'succeeded' });
const idsOf = (params: unknown[]) => (params.find((p) => Array.isArray(p)) as number[]).map(Number);
const tick = () => new Promise((r) => setImmediate(r));

describe('Completer', () => {
  it('writes one flush at a time; what finished meanwhile goes out together in the next', async () => {
    const { pool, calls } = fakePool();
    const flushed: CompletedBatch[] = [];
    const c = new Completer({ pool, flushMs: 1000, onFlushed: (b) => flushed.push(b), log: () => {} });
    c.add('t', item(1));
    const f1 = c.flush();
    c.add('t', item(2));
    const f2 = c.flush();
    c.add('t', item(3));
    const f3 = c.flush();
    await tick();
    expect(calls).toHaveLength(1);
    expect(c.unflushed()).toBe(3);
    calls[0]!.settle([{ id: 1, outcome: 'succeeded' }]);
    await f1;
    await tick();
    expect(calls).toHaveLength(2);
    expect(idsOf(calls[1]!.params)).toEqual([2, 3]);
    calls[1]!.settle([{ id: 2, outcome: 'succeeded' }, { id: 3, outcome: 'succeeded' }]);
    await Promise.all([f2, f3]);
    expect(flushed.map((b) => [...b.applied.keys()])).toEqual([[1], [2, 3]]);
    expect(c.unflushed()).toBe(0);
  });

  it('a flush carries the claim its refill planned; a failed write keeps its items and returns the reservation', async () => {
    const { pool, calls } = fakePool();
    const done: { reserved: number; claimed: number[] }[] = [];
    const refill: Refill = {
      coordinatorId: '00000000-0000-0000-0000-000000000001',
      plan: (_task, freeing) => ({ max: freeing, leaseMs: 1000 }),
      done: (_task, reserved, rows) => done.push({ reserved, claimed: rows.map((r) => r.id) }),
    };
    const flushed: CompletedBatch[] = [];
    const logs: string[] = [];
    const c = new Completer({ pool, flushMs: 1000, refill, onFlushed: (b) => flushed.push(b), log: (m) => logs.push(m) });
    c.add('t', item(1));
    c.add('t', item(2));
    const f1 = c.flush();
    await tick();
    expect(calls[0]!.sql).toContain('sluice_cycle');
    calls[0]!.fail(new Error('connection lost'));
    await f1;
    expect(done).toEqual([{ reserved: 2, claimed: [] }]);
    expect(c.pending()).toBe(2);
    expect(logs[0]).toMatch(/failed \(2 kept for retry\): connection lost/);
    const f2 = c.flush();
    await tick();
    expect(idsOf(calls[1]!.params)).toEqual([1, 2]);
    calls[1]!.settle([claimedRow(10), claimedRow(11)]);
    await f2;
    expect([...flushed[0]!.applied.keys()]).toEqual([1, 2]);
    expect(done[1]).toEqual({ reserved: 2, claimed: [10, 11] });
    await c.close();
  });

  it('idle() and close() wait for the flush being written, even with nothing buffered', async () => {
    const { pool, calls } = fakePool();
    const c = new Completer({ pool, flushMs: 1000, onFlushed: () => {}, log: () => {} });
    c.add('t', item(1));
    void c.flush();
    await tick();
    let idle = false;
    let closed = false;
    const idling = c.idle().then(() => (idle = true));
    const closing = c.close().then(() => (closed = true));
    await tick();
    expect([idle, closed]).toEqual([false, false]);
    calls[0]!.settle([{ id: 1, outcome: 'succeeded' }]);
    await Promise.all([idling, closing]);
    expect([idle, closed]).toEqual([true, true]);
  });
});
