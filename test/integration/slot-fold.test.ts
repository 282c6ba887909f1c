// Slot counters through slot_deltas (issue #23, W7): claims and finishes log their per-key
// moves instead of updating group_slots under the task lock, and sluice_fold_slots adds
// them in later (server/db/sql/functions/sluice_fold_slots.sql). What must hold:
//  * every logged move is added exactly once, with folds running beside claiming and
//    finishing members (several folds of one task at once, SKIP LOCKED);
//  * group_slots + the unfolded moves = the counts recomputed from the rows, at any commit;
//  * a fold takes no task lock (it runs while a claim holds it);
//  * the reconciler folds first and waits for a fold in progress, so logged moves are never
//    "repaired" as drift, nor added twice;
//  * a row slot GC deleted comes back from the fold with exactly the moves' sums.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import pg from 'pg';
import { testDatabase, type TestDatabase } from './db';
import { applyTasks, fakeCoordinator, sleep } from '../support/engine-fixtures';
import { enqueue } from '../../server/services/enqueue';
import { claimExecutions, type ClaimedExecution } from '../../server/db/claim-executions';
import { finishAndClaimExecutions } from '../../server/db/finish-and-claim-executions';
import type { FinishItem } from '../../server/db/finish-executions';
import { foldSlotDeltas, tasksWithSlotDeltas } from '../../server/db/fold-slot-deltas';
import { reconcileTask } from '../../server/db/reconcile-counters';
import { gcGroupSlots } from '../../server/db/gc-group-slots';

let db: TestDatabase;
const pools: pg.Pool[] = [];
beforeAll(async () => {
  db = await testDatabase();
  for (let i = 0; i < 4; i++) pools.push(new pg.Pool({ connectionString: db.url, max: 3 }));
});
afterAll(async () => {
  await Promise.all(pools.map((p) => p.end()));
});

/** Per key: group_slots against the rows (running = in_flight; queued or blocked = queued). */
async function drift(task: string, opts: { withUnfolded?: boolean } = {}) {
  const r = await db.pool.query(
    `WITH actual AS (
       SELECT k, count(*) FILTER (WHERE state = 'running')::int AS f, count(*) FILTER (WHERE state IN ('queued', 'blocked'))::int AS q
       FROM executions, unnest(group_keys) AS k WHERE task = $1 AND state IN ('queued', 'blocked', 'running') GROUP BY k
     ),
     unfolded AS (
       SELECT k, sum(d.d_in_flight)::int AS f, sum(d.d_queued)::int AS q
       FROM slot_deltas d, unnest(d.keys) AS k WHERE d.task = $1 AND $2 GROUP BY k
     ),
     recorded AS (
       SELECT coalesce(gs.k, u.k) AS k, coalesce(gs.in_flight, 0) + coalesce(u.f, 0) AS f, coalesce(gs.queued, 0) + coalesce(u.q, 0) AS q
       FROM (SELECT group_name || '=' || group_key AS k, in_flight, queued FROM group_slots WHERE task = $1) gs
       FULL JOIN unfolded u ON u.k = gs.k
     )
     SELECT coalesce(a.k, r.k) AS k, r.f AS rec_f, r.q AS rec_q, a.f, a.q
     FROM actual a FULL JOIN recorded r ON r.k = a.k
     WHERE coalesce(r.f, 0) <> coalesce(a.f, 0) OR coalesce(r.q, 0) <> coalesce(a.q, 0)
     ORDER BY 1`,
    [task, opts.withUnfolded ?? false],
  );
  return r.rows;
}

describe('slot counter moves, logged and folded', () => {
  it('folds beside claiming and finishing members add every move exactly once; group_slots + unfolded moves match the rows at any commit', async () => {
    await applyTasks(db.pool, [{
      name: 'sf', partitions: 4, concurrency: 40,
      groups: [{ name: 'tenant', limit: 12, keyPath: 't' }, { name: 'key', limit: 2, keyPath: 'k' }, { name: 'region', limit: 30, keyPath: 'r' }],
      retry: { maxAttempts: 50, backoff: 'fixed', baseDelayMs: 0 },
      backpressure: { maxDepth: 100_000 },
    }]);
    const coords = [];
    for (let i = 0; i < 3; i++) coords.push(await fakeCoordinator(pools[i]!, ['sf'], { sf: [i, ...(i === 0 ? [3] : [])] }));
    await enqueue(db.pool, 'sf', Array.from({ length: 1500 }, (_, i) => ({ payload: { t: `t${i % 5}`, k: `k${i % 23}`, r: `r${i % 2}` } })));
    let stop = false;
    let cycles = 0;
    async function member(pool: pg.Pool, me: string) {
      let running: ClaimedExecution[] = await claimExecutions(pool, me, 'sf', 15, 60_000);
      while (!stop) {
        if (running.length === 0) {
          running = await claimExecutions(pool, me, 'sf', 15, 60_000);
          if (running.length === 0) await sleep(2);
          continue;
        }
        const done = running.slice(0, 1 + Math.floor(Math.random() * running.length));
        const items: FinishItem[] = done.map((e) => {
          const x = Math.random();
          return x < 0.6 ? { id: e.id, leaseToken: e.leaseToken, outcome: 'succeeded' as const }
            : x < 0.85 ? { id: e.id, leaseToken: e.leaseToken, outcome: 'retry' as const, runAt: new Date(Date.now() - 1), error: 'again' }
            : x < 0.95 ? { id: e.id, leaseToken: e.leaseToken, outcome: 'release' as const }
            : { id: e.id, leaseToken: e.leaseToken, outcome: 'dead' as const, error: 'gone' };
        });
        const r = await finishAndClaimExecutions(pool, me, 'sf', items, 15 - (running.length - done.length), 60_000);
        expect(r.applied.size).toBe(done.length);
        running = [...running.slice(done.length), ...r.claimed];
        cycles++;
      }
    }
    let folds = 0;
    let folded = 0;
    async function folder(pool: pg.Pool) {
      while (!stop) {
        const n = await foldSlotDeltas(pool, 'sf');
        folds++;
        folded += n;
        await sleep(Math.random() * 6);
      }
    }
    const work = [member(pools[0]!, coords[0]!), member(pools[1]!, coords[1]!), member(pools[2]!, coords[2]!), folder(pools[3]!), folder(pools[3]!)];
    // While they run: the sum of group_slots and the unfolded moves is the truth in every
    // snapshot (one statement reads all three).
    for (let i = 0; i < 10; i++) {
      await sleep(60);
      expect(await drift('sf', { withUnfolded: true })).toEqual([]);
    }
    stop = true;
    await Promise.all(work);
    expect(cycles).toBeGreaterThan(20);
    expect(folds).toBeGreaterThan(10);
    expect(folded).toBeGreaterThan(0);
    expect(await drift('sf', { withUnfolded: true })).toEqual([]);
    await foldSlotDeltas(db.pool, 'sf');
    expect(Number((await db.pool.query(`SELECT count(*) AS n FROM slot_deltas WHERE task = 'sf'`)).rows[0].n)).toBe(0);
    // some rows still running, some queued: the counters are not trivially zero
    const states = await db.pool.query(`SELECT count(*) FILTER (WHERE state = 'running')::int AS r, count(*) FILTER (WHERE state = 'queued')::int AS q FROM executions WHERE task = 'sf'`);
    expect(states.rows[0].r).toBeGreaterThan(0);
    expect(states.rows[0].q).toBeGreaterThan(0);
    expect(await drift('sf')).toEqual([]);
  }, 60_000);

  it('a fold takes no task lock: it completes while a claim holds the task', async () => {
    await applyTasks(db.pool, [{ name: 'sf-lock', partitions: 1, concurrency: 10, groups: [{ name: 'tenant', limit: 5, keyPath: 't' }] }]);
    const me = await fakeCoordinator(db.pool, ['sf-lock']);
    await enqueue(db.pool, 'sf-lock', [{ payload: { t: 'a' } }, { payload: { t: 'b' } }]);
    expect(await claimExecutions(db.pool, me, 'sf-lock', 1, 60_000)).toHaveLength(1);
    const holder = await db.pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(`SELECT 1 FROM task_runtime WHERE task = 'sf-lock' FOR NO KEY UPDATE`);
      const fold = await Promise.race([foldSlotDeltas(db.pool, 'sf-lock'), sleep(5_000).then(() => 'waited' as const)]);
      expect(fold).toBe(2); // the enqueue's +queued and the claim's moves
    } finally {
      await holder.query('ROLLBACK');
      holder.release();
    }
    expect(await drift('sf-lock')).toEqual([]);
  });

  it('the reconciler folds first and waits for a fold in progress: logged moves are neither repaired as drift nor added twice', async () => {
    await applyTasks(db.pool, [{ name: 'sf-rec', partitions: 2, concurrency: 10, groups: [{ name: 'tenant', limit: 5, keyPath: 't' }] }]);
    const me = await fakeCoordinator(db.pool, ['sf-rec']);
    await enqueue(db.pool, 'sf-rec', Array.from({ length: 8 }, (_, i) => ({ payload: { t: `t${i % 3}` } })));
    const got = await claimExecutions(db.pool, me, 'sf-rec', 3, 60_000);
    expect(got).toHaveLength(3);
    // A fold in progress, between taking the claim's logged rows and updating their slot
    // rows (sluice_fold_slots' first statement, then its second) …
    const folding = await db.pool.connect();
    try {
      await folding.query('BEGIN');
      // (the enqueue's +queued row and the claim's)
      expect((await folding.query(`SELECT id FROM slot_deltas WHERE task = 'sf-rec' ORDER BY id FOR UPDATE`)).rows).toHaveLength(2);
      // … while a second claim logs more, and the reconciler runs on its own transaction.
      // Skipping the locked rows it would count group_slots without the first claim's moves
      // and "repair" them (then the fold would add them again).
      expect(await claimExecutions(db.pool, me, 'sf-rec', 2, 60_000)).toHaveLength(2);
      const reconciling = db.pool.connect().then(async (c) => {
        try {
          await c.query('BEGIN');
          const m = await reconcileTask(c, 'sf-rec');
          await c.query('COMMIT');
          return m;
        } finally {
          c.release();
        }
      });
      const early = await Promise.race([reconciling, sleep(300).then(() => 'waiting' as const)]);
      expect(early).toBe('waiting'); // it waits for the fold's rows, not skipping them
      // the fold goes on: its rows (and the second claim's, which the waiting reconciler
      // has not locked yet), then their slot rows
      expect(await foldSlotDeltas(folding, 'sf-rec')).toBe(3);
      await folding.query('COMMIT');
      expect(await reconciling).toEqual([]);
    } finally {
      folding.release();
    }
    expect(Number((await db.pool.query(`SELECT count(*) AS n FROM slot_deltas WHERE task = 'sf-rec'`)).rows[0].n)).toBe(0);
    expect(await drift('sf-rec')).toEqual([]);
    expect(Number((await db.pool.query(`SELECT count(*) AS n FROM reconcile_log WHERE task = 'sf-rec'`)).rows[0].n)).toBe(0);
  });

  it('slot GC deletes a row at (0, 0); the fold of moves logged for its key brings it back with exactly their sums', async () => {
    await applyTasks(db.pool, [{ name: 'sf-gc', partitions: 1, concurrency: 10, groups: [{ name: 'tenant', limit: 5, keyPath: 't' }] }]);
    const me = await fakeCoordinator(db.pool, ['sf-gc']);
    await enqueue(db.pool, 'sf-gc', [{ payload: { t: 'x' } }]);
    expect(await foldSlotDeltas(db.pool, 'sf-gc')).toBe(1); // the enqueue's +queued: the key's row
    const [e] = await claimExecutions(db.pool, me, 'sf-gc', 1, 60_000);
    const r = await finishAndClaimExecutions(db.pool, me, 'sf-gc', [{ id: e!.id, leaseToken: e!.leaseToken, outcome: 'succeeded' }], 0, 60_000);
    expect(r.applied.size).toBe(1);
    expect(await tasksWithSlotDeltas(db.pool)).toContain('sf-gc');
    expect(await foldSlotDeltas(db.pool, 'sf-gc')).toBe(2); // the claim's row and the finish's
    expect((await db.pool.query(`SELECT in_flight, queued FROM group_slots WHERE task = 'sf-gc'`)).rows).toEqual([{ in_flight: 0, queued: 0 }]);
    await db.pool.query(`UPDATE group_slots SET last_used_at = now() - interval '1 hour' WHERE task = 'sf-gc'`);
    expect(await gcGroupSlots(db.pool, 60_000)).toBeGreaterThanOrEqual(1);
    expect((await db.pool.query(`SELECT 1 FROM group_slots WHERE task = 'sf-gc'`)).rows).toHaveLength(0);
    // an enqueue and a claim of a new execution of the key, logged before the row existed again
    await enqueue(db.pool, 'sf-gc', [{ payload: { t: 'x' } }, { payload: { t: 'x' } }]);
    expect(await claimExecutions(db.pool, me, 'sf-gc', 1, 60_000)).toHaveLength(1);
    expect(await foldSlotDeltas(db.pool, 'sf-gc')).toBe(2);
    expect((await db.pool.query(`SELECT in_flight, queued FROM group_slots WHERE task = 'sf-gc'`)).rows).toEqual([{ in_flight: 1, queued: 1 }]);
    expect(await drift('sf-gc')).toEqual([]);
  });
});
