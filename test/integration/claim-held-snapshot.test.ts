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
import { applyTasks, claimIndexReads, fakeCoordinator, statsDelta } from '../support/engine-fixtures';
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

  it('writes the task_counters row once per cycle (in_flight −finished +claimed in one update), and once when it claims nothing; never task_runtime\'s', async () => {
    await applyTasks(db.pool, [{ name: 'ch1', partitions: 1, concurrency: 4 }]);
    const me = await fakeCoordinator(db.pool, ['ch1']);
    await enqueue(db.pool, 'ch1', Array.from({ length: 6 }, (_, i) => ({ payload: { i } })));
    const c = await db.pool.connect();
    const inFlight = async () => (await db.pool.query(`SELECT in_flight FROM task_counters WHERE task = 'ch1'`)).rows[0].in_flight;
    // updates of each table counted by this connection's not yet reported statistics
    const updates = async (table: string) =>
      Number((await c.query(`SELECT coalesce(sum(n_tup_upd), 0) AS n FROM pg_stat_xact_user_tables WHERE relname = $1`, [table])).rows[0].n);
    try {
      const running = await claimExecutions(db.pool, me, 'ch1', 4, 60_000);
      expect(await inFlight()).toBe(4);
      await c.query('BEGIN');
      let before = [await updates('task_counters'), await updates('task_runtime')];
      const r = await finishAndClaimExecutions(c, me, 'ch1', succeed(running.slice(0, 3)), 4, 60_000);
      expect(r.claimed).toHaveLength(2); // 3 slots freed, 2 rows left
      expect([(await updates('task_counters')) - before[0]!, (await updates('task_runtime')) - before[1]!]).toEqual([1, 0]);
      await c.query('COMMIT');
      expect(await inFlight()).toBe(3);
      await c.query('BEGIN');
      before = [await updates('task_counters'), await updates('task_runtime')];
      const r2 = await finishAndClaimExecutions(c, me, 'ch1', succeed([running[3]!]), 4, 60_000);
      expect(r2.claimed).toHaveLength(0); // nothing left to claim: the cycle moves the finished one itself
      expect([(await updates('task_counters')) - before[0]!, (await updates('task_runtime')) - before[1]!]).toEqual([1, 0]);
      await c.query('COMMIT');
      expect(await inFlight()).toBe(2);
    } finally {
      await c.query('ROLLBACK').catch(() => {});
      c.release();
    }
  });

  it('reads the task\'s rows in a few pages after 400 cycles under the snapshot: task_runtime\'s one version, task_counters\' narrow ones', async () => {
    // The claim, the finish and the cycle's lock read the task's row 5–7 times a cycle, and
    // each read walks every version the held snapshot keeps. With the counters in
    // task_runtime (1.7 kB a version here: 4 a page) 400 cycles left ~100 pages to walk per
    // read; in task_counters (~60 bytes: ~130 a page) they fill ~3, and task_runtime keeps one.
    // (the stored definition, with every default filled in, is most of the row's width)
    await applyTasks(db.pool, [{ name: 'ch2', partitions: 1, concurrency: 5, groups: [{ name: 'tenant', limit: 5, keyPath: 't' }, { name: 'key', limit: 1, keyPath: 'k' }] }]);
    const me = await fakeCoordinator(db.pool, ['ch2']);
    await enqueue(db.pool, 'ch2', Array.from({ length: 2100 }, (_, i) => ({ payload: { t: `t${i % 3}`, k: `k${i % 50}` } })));
    const width = await db.pool.query(`SELECT pg_column_size(t.*) AS w FROM task_runtime t WHERE task = 'ch2'`);
    expect(width.rows[0].w).toBeGreaterThan(1000);
    const holder = new pg.Client({ connectionString: db.url });
    await holder.connect();
    const one = new pg.Pool({ connectionString: db.url, max: 1 });
    try {
      await holder.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
      await holder.query('SELECT count(*) FROM task_runtime');
      let running = await claimExecutions(one, me, 'ch2', 5, 60_000);
      for (let i = 0; i < 400; i++) {
        running = (await finishAndClaimExecutions(one, me, 'ch2', succeed(running), 5, 60_000)).claimed;
        expect(running).toHaveLength(5);
      }
      const c = await one.connect();
      try {
        const { delta } = await statsDelta(
          db.pool, c,
          `SELECT sum(heap_blks_read + heap_blks_hit) FILTER (WHERE relname = 'task_runtime') AS runtime,
                  sum(heap_blks_read + heap_blks_hit) FILTER (WHERE relname = 'task_counters') AS counters
           FROM pg_statio_user_tables WHERE relname IN ('task_runtime', 'task_counters')`,
          (cl) => finishAndClaimExecutions(cl, me, 'ch2', succeed(running), 5, 60_000),
        );
        // measured (2026-12-07, a 1,765-byte task_runtime row): task_runtime 6 and
        // task_counters 9 pages; with the counters in task_runtime (the build before), 409
        expect(delta.runtime).toBeLessThan(20);
        expect(delta.counters).toBeLessThan(60);
      } finally {
        c.release();
      }
    } finally {
      await holder.query('ROLLBACK');
      await holder.end();
      await one.end();
    }
  });
});
