// The running floor (issue #18, migration 20261202000200000_running_floor): the claim reads
// the task's keys in use from executions_running_idx starting at task_runtime.running_floor,
// a lower bound on the ids of its running rows with a key. What must hold:
//  * the floor follows the running rows: it rises as the oldest running rows finish and
//    falls to a row started far below it (a retried old execution), so that row's keys
//    still count and no key goes over its limit;
//  * under a snapshot another session holds, the read does not walk the entries of every
//    execution that ran since (none of them removable);
//  * a floor above a running row is the reconciler's to repair, logged.
import { describe, it, expect, beforeAll } from 'vitest';
import { testDatabase, type TestDatabase } from './db';
import { applyTasks, fakeCoordinator, statsDelta } from '../support/engine-fixtures';
import { enqueue } from '../../server/services/enqueue';
import { claimExecutions, type ClaimedExecution } from '../../server/db/claim-executions';
import { finishExecutions } from '../../server/db/finish-executions';
import { reconcileTask } from '../../server/db/reconcile-counters';
import { withTransaction } from '../../server/db/pool';

let db: TestDatabase;
beforeAll(async () => {
  db = await testDatabase();
});

const floorOf = async (task: string) => Number((await db.pool.query(`SELECT running_floor FROM task_runtime WHERE task = $1`, [task])).rows[0].running_floor);
const lowestRunning = async (task: string) =>
  Number((await db.pool.query(`SELECT min(id) AS m FROM executions WHERE task = $1 AND state = 'running'`, [task])).rows[0].m);
const succeed = (rows: ClaimedExecution[]) => rows.map((e) => ({ id: e.id, leaseToken: e.leaseToken, outcome: 'succeeded' as const }));

describe('the running floor', () => {
  it('rises as the oldest running rows finish and falls to an old row started again, whose key then still counts', async () => {
    await applyTasks(db.pool, [{
      name: 'rf', partitions: 1, concurrency: 100,
      groups: [{ name: 'k', limit: 1, keyPath: 'k' }, { name: 'n', limit: 100, keyPath: 'n' }],
      retry: { maxAttempts: 5, backoff: 'fixed', baseDelayMs: 0 },
    }]);
    const me = await fakeCoordinator(db.pool, ['rf']);
    // an old execution of key `solo`, then 40 of other keys
    const [solo] = (await enqueue(db.pool, 'rf', [{ payload: { k: 'solo', n: 'x' } }])).executions;
    await enqueue(db.pool, 'rf', Array.from({ length: 40 }, (_, i) => ({ payload: { k: `k${i}`, n: 'x' } })));
    const first = await claimExecutions(db.pool, me, 'rf', 20, 60_000);
    expect(first.map((e) => e.id)).toContain(solo!.id);
    expect(await floorOf('rf')).toBeLessThanOrEqual(solo!.id!);
    // solo fails (retried at once, queued again); the others finish; later ones run and finish
    const soloRow = first.find((e) => e.id === solo!.id)!;
    await finishExecutions(db.pool, 'rf', [
      { id: soloRow.id, leaseToken: soloRow.leaseToken, outcome: 'retry', runAt: new Date(Date.now() + 60_000), error: 'later' },
      ...succeed(first.filter((e) => e.id !== solo!.id)),
    ]);
    const second = await claimExecutions(db.pool, me, 'rf', 10, 60_000);
    expect(second).toHaveLength(10);
    const third = await claimExecutions(db.pool, me, 'rf', 1, 60_000); // reads the 10 running rows: the floor rises to them
    expect(third).toHaveLength(1);
    expect(await floorOf('rf')).toBeGreaterThan(solo!.id!);
    expect(await floorOf('rf')).toBeLessThanOrEqual(await lowestRunning('rf'));
    // solo is due again and starts far below the floor: the floor falls to it …
    await db.pool.query(`UPDATE executions SET run_at = now() - interval '1 second' WHERE id = $1`, [solo!.id]);
    const again = await claimExecutions(db.pool, me, 'rf', 5, 60_000);
    expect(again.map((e) => e.id)).toContain(solo!.id);
    expect(await floorOf('rf')).toBeLessThanOrEqual(solo!.id!);
    // … so its key counts: another execution of `solo` does not start beside it
    const [solo2] = (await enqueue(db.pool, 'rf', [{ payload: { k: 'solo', n: 'x' } }])).executions;
    const more = await claimExecutions(db.pool, me, 'rf', 50, 60_000);
    expect(more.map((e) => e.id)).not.toContain(solo2!.id);
    const over = await db.pool.query(`SELECT k, count(*)::int AS n FROM executions, unnest(group_keys) k WHERE task = 'rf' AND state = 'running' AND k LIKE 'k=%' GROUP BY k HAVING count(*) > 1`);
    expect(over.rows).toEqual([]);
    // the reconciler finds the floor in order
    expect((await withTransaction(db.pool, (tx) => reconcileTask(tx, 'rf'))).filter((m) => m.counter === 'task.running_floor')).toEqual([]);
  });

  it('under a held snapshot the claim reads the running index from the floor, not every execution that ran since', async () => {
    await applyTasks(db.pool, [{ name: 'rf-held', partitions: 1, concurrency: 50, groups: [{ name: 'tenant', limit: 50, keyPath: 't' }], backpressure: { maxDepth: 100_000 } }]);
    const me = await fakeCoordinator(db.pool, ['rf-held']);
    const holder = await db.pool.connect();
    try {
      await holder.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
      await holder.query('SELECT 1 FROM task_runtime LIMIT 1'); // the snapshot now pins every dead tuple newer than it
      // 1,500 executions run and finish after the snapshot: their running-index entries stay
      await enqueue(db.pool, 'rf-held', Array.from({ length: 1_600 }, (_, i) => ({ payload: { t: `t${i % 7}` } })));
      for (let i = 0; i < 30; i++) await finishExecutions(db.pool, 'rf-held', succeed(await claimExecutions(db.pool, me, 'rf-held', 50, 60_000)));
      const running = await claimExecutions(db.pool, me, 'rf-held', 20, 60_000);
      expect(running).toHaveLength(20);
      // one more claim, counting what it read of executions_running_idx (one connection)
      const c = await db.pool.connect();
      const { delta, value: got } = await statsDelta(db.pool, c, `SELECT idx_tup_read AS n FROM pg_stat_user_indexes WHERE indexrelname = 'executions_running_idx'`, (cl) =>
        claimExecutions(cl, me, 'rf-held', 10, 60_000),
      ).finally(() => c.release());
      expect(got).toHaveLength(10);
      const reads = delta.n!;
      // the 20 running rows (and the few above the floor that finished); from the start of
      // the task's range it was ≥ 1,500
      expect(reads).toBeLessThan(200);
    } finally {
      await holder.query('ROLLBACK');
      holder.release();
    }
  });

  it('a floor above a running row is repaired by the reconciler and logged', async () => {
    await applyTasks(db.pool, [{ name: 'rf-bad', partitions: 1, concurrency: 10, groups: [{ name: 'tenant', limit: 1, keyPath: 't' }] }]);
    const me = await fakeCoordinator(db.pool, ['rf-bad']);
    await enqueue(db.pool, 'rf-bad', [{ payload: { t: 'a' } }, { payload: { t: 'a' } }]);
    const [a1] = await claimExecutions(db.pool, me, 'rf-bad', 5, 60_000);
    await db.pool.query(`UPDATE task_runtime SET running_floor = $2 WHERE task = $1`, ['rf-bad', a1!.id + 1000]);
    const m = await withTransaction(db.pool, (tx) => reconcileTask(tx, 'rf-bad'));
    expect(m.filter((x) => x.counter === 'task.running_floor').map((x) => [x.recorded, x.actual])).toEqual([[a1!.id + 1000, a1!.id]]);
    expect(await floorOf('rf-bad')).toBe(a1!.id);
    // and with the floor right, the key's running row counts: the second `a` waits
    expect(await claimExecutions(db.pool, me, 'rf-bad', 5, 60_000)).toEqual([]);
  });
});
