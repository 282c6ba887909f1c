// The running floor (issue #18, migration 20261202000200000_running_floor): the claim reads
// the task's keys in use from executions_running_idx (task, started_at) starting at
// task_counters.running_floor (task_runtime.running_floor before migration 20261207000100000_task_counters), a lower bound on when its running rows with a key started.
// What must hold:
//  * the floor is at or before the start of every running row with a key, and follows them
//    up as the earliest finish; a row that waited long for its key (an old id) starts now
//    and does not pull it back; the keys of every running row still count;
//  * under a snapshot another session holds, the read does not walk the entries of every
//    execution that ran since (none of them removable), even with an old row running;
//  * a floor after a running row's start is the reconciler's to repair, logged.
import { describe, it, expect, beforeAll } from 'vitest';
import { testDatabase, type TestDatabase } from './db';
import { applyTasks, fakeCoordinator, lowerClaimFloors, sleep, statsDelta } from '../support/engine-fixtures';
import { enqueue } from '../../server/services/enqueue';
import { claimExecutions, type ClaimedExecution } from '../../server/db/claim-executions';
import { finishExecutions } from '../../server/db/finish-executions';
import { reconcileTask } from '../../server/db/reconcile-counters';
import { withTransaction } from '../../server/db/pool';

let db: TestDatabase;
beforeAll(async () => {
  db = await testDatabase();
});

const floorOf = async (task: string) => (await db.pool.query<{ f: Date }>(`SELECT running_floor AS f FROM task_counters WHERE task = $1`, [task])).rows[0]!.f;
const earliestStart = async (task: string) =>
  (await db.pool.query<{ m: Date }>(`SELECT min(started_at) AS m FROM executions WHERE task = $1 AND state = 'running'`, [task])).rows[0]!.m;
const startOf = async (id: number) => (await db.pool.query<{ s: Date }>(`SELECT started_at AS s FROM executions WHERE id = $1`, [id])).rows[0]!.s;
const succeed = (rows: ClaimedExecution[]) => rows.map((e) => ({ id: e.id, leaseToken: e.leaseToken, outcome: 'succeeded' as const }));

describe('the running floor', () => {
  it('follows the running rows up; a row that waited long for its key starts now and does not pull it back; every running key counts', async () => {
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
    expect((await floorOf('rf')).getTime()).toBeLessThanOrEqual((await earliestStart('rf')).getTime());
    const soloFirstStart = await startOf(solo!.id!);
    // solo fails (retried later, queued again); the others finish; later ones run
    const soloRow = first.find((e) => e.id === solo!.id)!;
    await finishExecutions(db.pool, 'rf', [
      { id: soloRow.id, leaseToken: soloRow.leaseToken, outcome: 'retry', runAt: new Date(Date.now() + 60_000), error: 'later' },
      ...succeed(first.filter((e) => e.id !== solo!.id)),
    ]);
    await sleep(5);
    expect(await claimExecutions(db.pool, me, 'rf', 10, 60_000)).toHaveLength(10);
    expect(await claimExecutions(db.pool, me, 'rf', 1, 60_000)).toHaveLength(1); // reads the 10: the floor rises to them
    const risen = await floorOf('rf');
    expect(risen.getTime()).toBeGreaterThan(soloFirstStart.getTime());
    expect(risen.getTime()).toBeLessThanOrEqual((await earliestStart('rf')).getTime());
    // solo, the oldest id of all, is due again and starts now: the floor stays where the
    // running rows are (an id floor would have fallen back to it) …
    await db.pool.query(`UPDATE executions SET run_at = now() - interval '1 second' WHERE id = $1`, [solo!.id]);
    await lowerClaimFloors(db.pool, 'rf');
    const again = await claimExecutions(db.pool, me, 'rf', 5, 60_000);
    expect(again.map((e) => e.id)).toContain(solo!.id);
    expect((await floorOf('rf')).getTime()).toBeGreaterThanOrEqual(risen.getTime());
    expect((await floorOf('rf')).getTime()).toBeLessThanOrEqual((await startOf(solo!.id!)).getTime());
    // … and its key counts: another execution of `solo` does not start beside it
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
      // an execution enqueued first but due only later (an old id that starts late, as a
      // row that waited for its key does), then 1,500 that run and finish after the
      // snapshot: their running-index entries stay
      const [late] = (await enqueue(db.pool, 'rf-held', [{ payload: { t: 'late' }, delayMs: 60_000 }])).executions;
      await enqueue(db.pool, 'rf-held', Array.from({ length: 1_600 }, (_, i) => ({ payload: { t: `t${i % 7}` } })));
      for (let i = 0; i < 30; i++) await finishExecutions(db.pool, 'rf-held', succeed(await claimExecutions(db.pool, me, 'rf-held', 50, 60_000)));
      await db.pool.query(`UPDATE executions SET run_at = now() - interval '1 hour' WHERE id = $1`, [late!.id]);
      await lowerClaimFloors(db.pool, 'rf-held');
      const running = await claimExecutions(db.pool, me, 'rf-held', 20, 60_000);
      expect(running.map((e) => e.id)).toContain(late!.id);
      // one more claim, counting what it read of executions_running_idx (one connection)
      const c = await db.pool.connect();
      const { delta, value: got } = await statsDelta(db.pool, c, `SELECT idx_tup_read AS n FROM pg_stat_user_indexes WHERE indexrelname = 'executions_running_idx'`, (cl) =>
        claimExecutions(cl, me, 'rf-held', 10, 60_000),
      ).finally(() => c.release());
      expect(got).toHaveLength(10);
      const reads = delta.n!;
      // the 20 running rows (and the few that started after the floor and finished); the
      // task's whole range, or an id floor held back by `late`, was ≥ 1,500
      expect(reads).toBeLessThan(200);
    } finally {
      await holder.query('ROLLBACK');
      holder.release();
    }
  });

  it('a floor after a running row started is repaired by the reconciler and logged', async () => {
    await applyTasks(db.pool, [{ name: 'rf-bad', partitions: 1, concurrency: 10, groups: [{ name: 'tenant', limit: 1, keyPath: 't' }] }]);
    const me = await fakeCoordinator(db.pool, ['rf-bad']);
    await enqueue(db.pool, 'rf-bad', [{ payload: { t: 'a' } }, { payload: { t: 'a' } }]);
    const [a1] = await claimExecutions(db.pool, me, 'rf-bad', 5, 60_000);
    await db.pool.query(`UPDATE task_counters SET running_floor = now() + interval '1 hour' WHERE task = $1`, ['rf-bad']);
    // with the floor after its start, a1 is not seen: the second `a` would start beside it
    const m = await withTransaction(db.pool, (tx) => reconcileTask(tx, 'rf-bad'));
    const started = (await startOf(a1!.id)).getTime();
    expect(m.filter((x) => x.counter === 'task.running_floor').map((x) => [x.recorded > started + 3_000_000, x.actual])).toEqual([[true, started]]);
    expect((await floorOf('rf-bad')).getTime()).toBe(started);
    // and with the floor right, the key's running row counts: the second `a` waits
    expect(await claimExecutions(db.pool, me, 'rf-bad', 5, 60_000)).toEqual([]);
  });
});
