// The claim and finish after migration 20261123000700000 (hot_slots): plans that hold
// whatever the statistics say, saturated keys read from running rows, when a short round
// sets rows aside, and slot counters moved by one sorted upsert.
// SQL-level: claims and finishes through the functions, no coordinator process.
import { describe, it, expect, beforeAll, onTestFinished } from 'vitest';
import pg from 'pg';
import { testDatabase, type TestDatabase } from './db';
import { applyTasks, fakeCoordinator, statsDelta } from '../support/engine-fixtures';
import { enqueue } from '../../server/services/enqueue';
import { claimExecutions, type ClaimedExecution } from '../../server/db/claim-executions';
import { finishExecutions } from '../../server/db/finish-executions';
import { registerCoordinator } from '../../server/db/coordinator-membership';
import { foldSlotDeltas } from '../../server/db/fold-slot-deltas';
import { withTransaction } from '../../server/db/pool';
import { reconcileTask } from '../../server/db/reconcile-counters';

let db: TestDatabase;
beforeAll(async () => {
  db = await testDatabase();
});

const perTenant = (rows: ClaimedExecution[]) => {
  const n: Record<string, number> = {};
  for (const e of rows) n[e.groups.tenant!] = (n[e.groups.tenant!] ?? 0) + 1;
  return n;
};
const succeed = (rows: ClaimedExecution[]) => rows.map((e) => ({ id: e.id, leaseToken: e.leaseToken, outcome: 'succeeded' as const }));

/** Rows of `executions` read by sequential scans while `fn` runs on its own session. */
async function seqRowsRead(fn: (c: pg.Client) => Promise<void>): Promise<number> {
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  onTestFinished(() => c.end());
  const { delta } = await statsDelta(db.pool, c, `SELECT seq_tup_read AS n FROM pg_stat_user_tables WHERE relname = 'executions'`, fn);
  return delta.n!;
}

/** group_slots once the logged moves are folded (as a coordinator folds them). */
async function slots(task: string): Promise<Record<string, { in_flight: number; queued: number }>> {
  await foldSlotDeltas(db.pool, task);
  const r = await db.pool.query<{ k: string; in_flight: number; queued: number }>(
    `SELECT group_name || '=' || group_key AS k, in_flight, queued FROM group_slots WHERE task = $1 ORDER BY 1`,
    [task],
  );
  return Object.fromEntries(r.rows.map((x) => [x.k, { in_flight: x.in_flight, queued: x.queued }]));
}

describe('claim plans that hold whatever the statistics say', () => {
  it('an idle claim never seq-scans executions, even planned when nearly every row was claimable', async () => {
    // Statistics that make a seq scan look cheap: every row is queued and half of them
    // are the task's. The generic plan a new session makes from them drove the old
    // cheap exit (a plain EXISTS join) with a seq scan of executions, joined against
    // the member's owned partitions: a member owning none of them read every row on every
    // poll (19 ms at 120k rows, growing with every row kept). Checked: the old function
    // reads all 120k rows on each of the 5 claims below.
    await applyTasks(db.pool, [{ name: 'idle', partitions: 4, concurrency: 10, backpressure: { maxDepth: 1_000_000 } }]);
    // 120k queued rows, half of them the task's, written directly (an enqueue of this many
    // takes seconds), so the counters do not know these rows; nothing below claims them.
    await db.pool.query(`INSERT INTO executions (task, partition, state, payload)
      SELECT CASE WHEN i % 2 = 0 THEN 'idle' ELSE 'other' END, i % 4, 'queued', '{}' FROM generate_series(1, 120000) i`);
    await db.pool.query('VACUUM ANALYZE');
    await fakeCoordinator(db.pool, ['idle']); // another member owns every partition
    const bystander = await registerCoordinator(db.pool, { name: 'bystander', host: 'test', pid: process.pid, tasks: ['idle'], slots: 10, metricsPort: null });
    const read = await seqRowsRead(async (c) => {
      for (let i = 0; i < 5; i++) {
        const r = await c.query('SELECT * FROM sluice_claim($1, $2, 10, 60000)', [bystander, 'idle']);
        expect(r.rows).toEqual([]);
      }
    });
    expect(read).toBe(0);
  });
});

describe('saturated keys and setting rows aside', () => {
  it('a short round whose window filled without skipping sets nothing aside', async () => {
    // Four tenants in turn at the head, limit 2 each: a claim for 10 finds 8. Its window
    // (1.5 × 10 + 16 rows) filled with rows of unsaturated tenants, so the round was only
    // short because the ranking turned rows down: nothing is set aside, not even the
    // saturated tenant's rows further back (which a set-aside pass would have written).
    await applyTasks(db.pool, [{ name: 'turns', partitions: 1, concurrency: 100, groups: [{ name: 'tenant', limit: 2, keyPath: 't', overrides: { x: 1 } }], backpressure: { maxDepth: 100_000 } }]);
    const me = await fakeCoordinator(db.pool, ['turns']);
    await enqueue(db.pool, 'turns', [{ payload: { t: 'x' } }]);
    const x = await claimExecutions(db.pool, me, 'turns', 1, 60_000);
    expect(x.map((e) => e.groups)).toEqual([{ tenant: 'x' }]);
    await enqueue(db.pool, 'turns', Array.from({ length: 100 }, (_, i) => ({ payload: { t: `t${i % 4}` } })));
    await enqueue(db.pool, 'turns', Array.from({ length: 20 }, () => ({ payload: { t: 'x' } })));

    const got = await claimExecutions(db.pool, me, 'turns', 10, 60_000);
    expect(got).toHaveLength(8);
    expect(perTenant(got)).toEqual({ t0: 2, t1: 2, t2: 2, t3: 2 });
    const w = await db.pool.query(`SELECT count(*)::int AS n FROM executions WHERE task = 'turns' AND waiting_on IS NOT NULL`);
    expect(w.rows[0].n).toBe(0);

    // Once every tenant at the head is saturated the head is clogged: the next claim finds
    // nothing and sets the saturated rows aside (the waiting rows' own tests cover more).
    expect(await claimExecutions(db.pool, me, 'turns', 10, 60_000)).toEqual([]);
    const w2 = await db.pool.query(`SELECT count(*)::int AS n FROM executions WHERE task = 'turns' AND waiting_on IS NOT NULL`);
    expect(w2.rows[0].n).toBe(112);
    // Freeing slots brings them back and the limits hold throughout.
    await finishExecutions(db.pool, 'turns', succeed([...x, ...got]));
    const again = await claimExecutions(db.pool, me, 'turns', 20, 60_000);
    expect(perTenant(again)).toEqual({ t0: 2, t1: 2, t2: 2, t3: 2, x: 1 });
  });

  it('a key is saturated by its running rows, whatever a drifted counter says', async () => {
    await applyTasks(db.pool, [{ name: 'drift', partitions: 1, concurrency: 10, groups: [{ name: 'tenant', limit: 1, keyPath: 't' }], backpressure: { maxDepth: 100_000 } }]);
    const me = await fakeCoordinator(db.pool, ['drift']);
    await enqueue(db.pool, 'drift', Array.from({ length: 3 }, () => ({ payload: { t: 'a' } })));
    const first = await claimExecutions(db.pool, me, 'drift', 5, 60_000);
    expect(first).toHaveLength(1);
    // A counter that drifted low (the reconciler would repair it) does not let a second
    // execution of the key start: the running row is what counts.
    await db.pool.query(`UPDATE group_slots SET in_flight = 0 WHERE task = 'drift'`);
    expect(await claimExecutions(db.pool, me, 'drift', 5, 60_000)).toEqual([]);
    await finishExecutions(db.pool, 'drift', succeed(first));
    expect(await claimExecutions(db.pool, me, 'drift', 5, 60_000)).toHaveLength(1);
  });
});

describe('slot counters', () => {
  it('move by the logged deltas once folded; a slot row that vanished comes back with the sums and the reconciler repairs it', async () => {
    await applyTasks(db.pool, [{ name: 'gone', partitions: 1, concurrency: 10, groups: [{ name: 'tenant', limit: 5, keyPath: 't' }], retry: { maxAttempts: 3, backoff: 'fixed', baseDelayMs: 0 }, backpressure: { maxDepth: 100_000 } }]);
    const me = await fakeCoordinator(db.pool, ['gone']);
    await enqueue(db.pool, 'gone', [{ payload: { t: 'a' } }, { payload: { t: 'a' } }, { payload: { t: 'b' } }]);
    const got = await claimExecutions(db.pool, me, 'gone', 5, 60_000);
    expect(got).toHaveLength(3);
    expect(await slots('gone')).toEqual({ 'tenant=a': { in_flight: 2, queued: 0 }, 'tenant=b': { in_flight: 1, queued: 0 } });
    // tenant=b's row vanishes (a hand edit): the fold of its finish recreates it from the
    // moves alone (−1 in flight, the retried execution +1 queued); tenant=a's counters move
    // as usual. The reconciler then counts the rows and repairs b, logging it.
    await db.pool.query(`DELETE FROM group_slots WHERE task = 'gone' AND group_key = 'b'`);
    const [a1, a2, b] = [got.find((e) => e.groups.tenant === 'a')!, got.filter((e) => e.groups.tenant === 'a')[1]!, got.find((e) => e.groups.tenant === 'b')!];
    const done = await finishExecutions(db.pool, 'gone', [
      { id: a1.id, leaseToken: a1.leaseToken, outcome: 'succeeded' },
      { id: a2.id, leaseToken: a2.leaseToken, outcome: 'retry', error: 'again', runAt: new Date() },
      { id: b.id, leaseToken: b.leaseToken, outcome: 'retry', error: 'again', runAt: new Date() },
    ]);
    expect(done.size).toBe(3);
    expect(await slots('gone')).toEqual({ 'tenant=a': { in_flight: 0, queued: 1 }, 'tenant=b': { in_flight: -1, queued: 1 } });
    const repaired = await withTransaction(db.pool, (tx) => reconcileTask(tx, 'gone'));
    expect(repaired.map((m) => [m.counter, m.groupKey, m.recorded, m.actual])).toEqual([['group.in_flight', 'b', -1, 0]]);
    expect(await slots('gone')).toEqual({ 'tenant=a': { in_flight: 0, queued: 1 }, 'tenant=b': { in_flight: 0, queued: 1 } });
  });
});
