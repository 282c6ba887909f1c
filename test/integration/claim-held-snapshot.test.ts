// A cycle's claim under a snapshot another session holds (issue #18): the claim index keeps
// an entry for every row claimed since the snapshot (none can be removed or marked dead),
// at the head of each partition's range. The cycle reads that head once — its ranking —
// and not a second time for the cheap exit, which only a claim of its own (the claim loop's
// idle poll, before it takes any lock) needs; and it reads it from the partition's claim
// floor (migration 20261203000100000_claim_floor), which each claim raises past the rows it
// claimed, so what it walks is the rows claimed since the last claim, not since the snapshot.
import { describe, it, expect, beforeAll } from 'vitest';
import pg from 'pg';
import { testDatabase, type TestDatabase } from './db';
import { applyTasks, claimIndexReads, fakeCoordinator } from '../support/engine-fixtures';
import { enqueue } from '../../server/services/enqueue';
import { claimExecutions, type ClaimedExecution } from '../../server/db/claim-executions';
import { finishAndClaimExecutions } from '../../server/db/finish-and-claim-executions';

let db: TestDatabase;
beforeAll(async () => {
  db = await testDatabase();
});

const succeed = (rows: ClaimedExecution[]) => rows.map((e) => ({ id: e.id, leaseToken: e.leaseToken, outcome: 'succeeded' as const }));

describe('a cycle under a held snapshot', () => {
  it('reads the claim index from the claim floor: not the entries of the 2,400 rows claimed since the snapshot, only the last cycle\'s 200', async () => {
    await applyTasks(db.pool, [{ name: 'ch', partitions: 1, concurrency: 200, groups: [{ name: 'tenant', limit: 200, keyPath: 't' }], backpressure: { maxDepth: 100_000 } }]);
    const me = await fakeCoordinator(db.pool, ['ch']);
    await enqueue(db.pool, 'ch', Array.from({ length: 3000 }, (_, i) => ({ payload: { t: `t${i % 4}` } })));
    const holder = new pg.Client({ connectionString: db.url });
    await holder.connect();
    const one = new pg.Pool({ connectionString: db.url, max: 1 });
    try {
      await holder.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
      await holder.query('SELECT count(*) FROM executions');
      // Every claim and cycle on the one connection the measurement flushes: another
      // backend's index statistics reach the shared counters when it flushes them (up to 10 s
      // after its last transaction when it had flushed within the second before), and a
      // late flush of the earlier cycles' 2,400 entries landed inside the measured window once
      // (6,735 reads, full integration run, 2026-12-07).
      let running = await claimExecutions(one, me, 'ch', 200, 60_000);
      for (let i = 0; i < 11; i++) {
        const r = await finishAndClaimExecutions(one, me, 'ch', succeed(running), 200, 60_000);
        running = r.claimed;
        expect(running).toHaveLength(200);
      }
      // 2,400 claimed since the snapshot; the next cycle, measured
      const { reads, value } = await claimIndexReads(db.pool, one, (c) => finishAndClaimExecutions(c, me, 'ch', succeed(running), 200, 60_000));
      expect(value.claimed).toHaveLength(200);
      // the ranking from the floor the last cycle left (its window: 1.5 × 200 + 16 live rows),
      // then the raise's probe from there past the 200 rows this cycle claimed: measured 518.
      // From the start of the range, as before the floor: the 2,400 entries, then the live
      // rows (2,717); with the cheap exit's walk of the same head before it, 5,118.
      expect(reads).toBeGreaterThan(316);
      expect(reads).toBeLessThan(900);
      // the floor is at the first row still queued
      const first = await db.pool.query(`SELECT min(id)::int AS id FROM executions WHERE task = 'ch' AND state = 'queued'`);
      const floor = await db.pool.query(`SELECT claim_floor_id::int AS id FROM partition_stats WHERE task = 'ch' AND partition = 0`);
      expect(floor.rows[0].id).toBe(first.rows[0].id);
    } finally {
      await holder.query('ROLLBACK');
      await holder.end();
      await one.end();
    }
  });

  it('writes the task_runtime row once per cycle (in_flight −finished +claimed in one update), and once when it claims nothing', async () => {
    await applyTasks(db.pool, [{ name: 'ch1', partitions: 1, concurrency: 4 }]);
    const me = await fakeCoordinator(db.pool, ['ch1']);
    await enqueue(db.pool, 'ch1', Array.from({ length: 6 }, (_, i) => ({ payload: { i } })));
    const c = await db.pool.connect();
    const inFlight = async () => (await db.pool.query(`SELECT in_flight FROM task_runtime WHERE task = 'ch1'`)).rows[0].in_flight;
    // updates of task_runtime counted by this connection's not yet reported statistics
    const updates = async () => Number((await c.query(`SELECT n_tup_upd FROM pg_stat_xact_user_tables WHERE relname = 'task_runtime'`)).rows[0].n_tup_upd);
    try {
      const running = await claimExecutions(db.pool, me, 'ch1', 4, 60_000);
      expect(await inFlight()).toBe(4);
      await c.query('BEGIN');
      let before = await updates();
      const r = await finishAndClaimExecutions(c, me, 'ch1', succeed(running.slice(0, 3)), 4, 60_000);
      expect(r.claimed).toHaveLength(2); // 3 slots freed, 2 rows left
      expect((await updates()) - before).toBe(1);
      await c.query('COMMIT');
      expect(await inFlight()).toBe(3);
      await c.query('BEGIN');
      before = await updates();
      const r2 = await finishAndClaimExecutions(c, me, 'ch1', succeed([running[3]!]), 4, 60_000);
      expect(r2.claimed).toHaveLength(0); // nothing left to claim: the cycle moves the finished one itself
      expect((await updates()) - before).toBe(1);
      await c.query('COMMIT');
      expect(await inFlight()).toBe(2);
    } finally {
      await c.query('ROLLBACK').catch(() => {});
      c.release();
    }
  });
});
