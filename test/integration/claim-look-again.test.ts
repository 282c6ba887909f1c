// A claim round whose window was taken up by the rows of keys it filled looks once more
// past them (sluice_claim_rows, v_full): the rows behind such a head are claimable, and
// without another round they waited for the next finish or poll with slots free — in the
// what-if calibration's workload a row held by its user key started 16–26 ms after its
// user's finish at p90–p99 (2026-12-02). SQL-level: claims and finishes through the
// functions, no coordinator process. Limits stay exact: the next round's ranking counts the
// rows the earlier rounds kept.
import { describe, it, expect, beforeAll } from 'vitest';
import { testDatabase, type TestDatabase } from './db';
import { applyTasks, fakeCoordinator } from '../support/engine-fixtures';
import { enqueue } from '../../server/services/enqueue';
import { claimExecutions, type ClaimedExecution } from '../../server/db/claim-executions';
import { finishAndClaimExecutions } from '../../server/db/finish-and-claim-executions';
import type { TaskDefinitionInput } from '../../server/core/task-definition';

let db: TestDatabase;
beforeAll(async () => {
  db = await testDatabase();
});

const succeed = (rows: ClaimedExecution[]) => rows.map((e) => ({ id: e.id, leaseToken: e.leaseToken, outcome: 'succeeded' as const }));
const tenantsOf = (rows: ClaimedExecution[]) => rows.map((r) => (r.groups as Record<string, string>).tenant).sort();

async function running(task: string): Promise<Record<string, number>> {
  const r = await db.pool.query<{ k: string; n: number }>(
    `SELECT groups->>'tenant' AS k, count(*)::int AS n FROM executions WHERE task = $1 AND state = 'running' GROUP BY 1 ORDER BY 1`,
    [task],
  );
  return Object.fromEntries(r.rows.map((x) => [x.k, x.n]));
}

const def = (name: string, extra: Partial<TaskDefinitionInput> = {}): TaskDefinitionInput => ({
  name,
  partitions: 1,
  concurrency: 10,
  groups: [
    { name: 'tenant', limit: 4, keyPath: 't', overrides: { t0: 2 } },
    { name: 'user', limit: 1, keyPath: 'u' },
  ],
  backpressure: { maxDepth: 100_000 },
  ...extra,
});

describe('a claim whose window one key filled', () => {
  it('looks past that key: the rows behind it are claimed in the same call, within every limit', async () => {
    await applyTasks(db.pool, [def('look1')]);
    const me = await fakeCoordinator(db.pool, ['look1']);
    // 40 rows of t0 (limit 2) first, then 5 of other tenants: a claim for 10 reads a window
    // of 31 rows (1.5 × 10 + 16), all t0's.
    await enqueue(db.pool, 'look1', Array.from({ length: 40 }, (_, i) => ({ payload: { t: 't0', u: `t0-u${i}` } })));
    await enqueue(db.pool, 'look1', ['t1', 't2', 't3', 't4', 't5'].map((t) => ({ payload: { t, u: `${t}-u0` } })));
    const got = await claimExecutions(db.pool, me, 'look1', 10, 60_000);
    expect(tenantsOf(got)).toEqual(['t0', 't0', 't1', 't2', 't3', 't4', 't5']);
    expect(await running('look1')).toEqual({ t0: 2, t1: 1, t2: 1, t3: 1, t4: 1, t5: 1 });
  });

  it('in a cycle: a row its user key held is claimed by the finish that freed it, behind a window of another tenant', async () => {
    await applyTasks(db.pool, [def('look2')]);
    const me = await fakeCoordinator(db.pool, ['look2']);
    await enqueue(db.pool, 'look2', [...Array.from({ length: 40 }, (_, i) => ({ payload: { t: 't0', u: `t0-u${i}` } })), { payload: { t: 't1', u: 'u7' } }, { payload: { t: 't1', u: 'u7' } }]);
    // t0 two, t1's first u7 row; the second u7 row waits on its user
    const first = await claimExecutions(db.pool, me, 'look2', 10, 60_000);
    expect(tenantsOf(first)).toEqual(['t0', 't0', 't1']);
    // All three finish in one cycle asking for 10: t0 has room for 2 again and 38 rows at the
    // head, the second u7 row lies behind them.
    const cycle = await finishAndClaimExecutions(db.pool, me, 'look2', succeed(first), 10, 60_000);
    expect(tenantsOf(cycle.claimed)).toEqual(['t0', 't0', 't1']);
    expect(cycle.claimed.map((r) => (r.groups as Record<string, string>).user)).toContain('u7');
    expect(await running('look2')).toEqual({ t0: 2, t1: 1 });
    // the limits: one u7 at a time, t0 at 2, 10 in all; a further claim finds nothing
    expect(await claimExecutions(db.pool, me, 'look2', 10, 60_000)).toEqual([]);
  });

  it('never claims beyond a limit a kept row used up: the next round counts the kept rows', async () => {
    // 12 rows of t1 (limit 4) with 12 distinct users, behind 31 of t0: the rounds after the
    // first take t1's 4 and no more, though t1's rows fill the window.
    await applyTasks(db.pool, [def('look3')]);
    const me = await fakeCoordinator(db.pool, ['look3']);
    await enqueue(db.pool, 'look3', Array.from({ length: 31 }, (_, i) => ({ payload: { t: 't0', u: `t0-u${i}` } })));
    await enqueue(db.pool, 'look3', Array.from({ length: 12 }, (_, i) => ({ payload: { t: 't1', u: `t1-u${i}` } })));
    await enqueue(db.pool, 'look3', [{ payload: { t: 't2', u: 't2-u0' } }]);
    const got = await claimExecutions(db.pool, me, 'look3', 10, 60_000);
    expect(await running('look3')).toEqual({ t0: 2, t1: 4, t2: 1 });
    expect(got).toHaveLength(7);
  });

  it('fair-share and rate-limited tasks keep their own passes (unchanged)', async () => {
    await applyTasks(db.pool, [def('look4', { groups: [{ name: 'tenant', limit: 4, keyPath: 't', overrides: { t0: 2 }, rate: { limit: 1000, per: 1000, burst: 100, overrides: {} } }, { name: 'user', limit: 1, keyPath: 'u' }] })]);
    const me = await fakeCoordinator(db.pool, ['look4']);
    await enqueue(db.pool, 'look4', Array.from({ length: 40 }, (_, i) => ({ payload: { t: 't0', u: `t0-u${i}` } })));
    await enqueue(db.pool, 'look4', [{ payload: { t: 't1', u: 't1-u0' } }]);
    // the rate path does not look again: t0's two only, the t1 row is left for the next claim
    expect(tenantsOf(await claimExecutions(db.pool, me, 'look4', 10, 60_000))).toEqual(['t0', 't0']);
    expect(tenantsOf(await claimExecutions(db.pool, me, 'look4', 10, 60_000))).toEqual(['t1']);
  });
});
