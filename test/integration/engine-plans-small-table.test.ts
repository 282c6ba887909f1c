// The hot-path functions keep their plans for the life of a session (generic plans, made at
// a session's first call). A coordinator that starts on a fresh database, or right after
// the executions table was emptied and vacuumed, plans them against a table of a few pages,
// where a sequential scan is the cheapest way to find anything. Kept for the session, such a
// plan then reads every row the table gains: bench:soak (2026-12-01) found the cheap exit,
// the claim's reply, the cycle's partition lookup and the keys in use seq-scanning
// executions, and the coordinators fell from keeping up with 2,800 arrivals/s to 400
// finished/s within a minute, in one run of three (whether the plans were made before or
// after the table's statistics grew). The functions now run with enable_seqscan off.
// Own file: the table must be small when this file's session plans.
import { describe, it, expect, beforeAll, onTestFinished } from 'vitest';
import pg from 'pg';
import { testDatabase, type TestDatabase } from './db';
import { applyTasks, fakeCoordinator, statsDelta } from '../support/engine-fixtures';
import { enqueue } from '../../server/services/enqueue';
import { claimExecutions, type ClaimedExecution } from '../../server/db/claim-executions';
import { finishAndClaimExecutions } from '../../server/db/finish-and-claim-executions';
import { finishExecutions, type FinishItem } from '../../server/db/finish-executions';

let db: TestDatabase;
beforeAll(async () => {
  db = await testDatabase();
});

const outcomes = (rows: ClaimedExecution[]): FinishItem[] =>
  rows.map((e, i) =>
    i % 4 === 3
      ? { id: e.id, leaseToken: e.leaseToken, outcome: 'retry' as const, runAt: new Date(), error: 'again' }
      : { id: e.id, leaseToken: e.leaseToken, outcome: 'succeeded' as const },
  );

describe('plans made while executions was small', () => {
  for (const shape of ['grouped', 'ungrouped', 'streams'] as const) {
    it(`a ${shape} task's claims, cycles and finishes read no executions row by sequential scan once the table has grown`, async () => {
      const task = `small-${shape}`;
      // Everything on one session: statistics a pool backend has not flushed yet (PG 15
      // holds them up to 10 s) would land inside the measured window (statsDelta). A CI run
      // counted one seq scan of 0 rows there: this case's DELETE of an empty table.
      const own = new pg.Pool({ connectionString: db.url, max: 1 });
      const c = await own.connect();
      onTestFinished(async () => {
        c.release();
        await own.end();
      });
      await applyTasks(c, [
        {
          name: task,
          partitions: 2,
          concurrency: 50,
          ...(shape === 'grouped' ? { groups: [{ name: 'tenant', limit: 5, keyPath: 't' }, { name: 'key', limit: 1, keyPath: 'k' }] } : {}),
          ...(shape === 'streams' ? { stream: { keyPath: 's' } } : {}),
          retry: { maxAttempts: 5, backoff: 'fixed', baseDelayMs: 0 },
          backpressure: { maxDepth: 1_000_000 },
        },
      ]);
      // The table small again (the previous case grew it): what a fresh deployment, or the
      // soak's emptied and vacuumed table, looks like to the planner.
      await c.query(`DELETE FROM executions`);
      await c.query('VACUUM ANALYZE executions');
      const payload = (i: number) => ({ t: `t${i % 3}`, k: `k${i % 7}`, s: `s${i % 5}` });
      await enqueue(c, task, Array.from({ length: 40 }, (_, i) => ({ payload: payload(i) })));
      const me = await fakeCoordinator(c, [task]);

      // The session plans every statement of the claim, the cycle and the finish now.
      const work = async (rounds: number) => {
        let running = await claimExecutions(c, me, task, 10, 60_000);
        for (let i = 0; i < rounds && running.length > 0; i++) {
          const r = await finishAndClaimExecutions(c, me, task, outcomes(running), 10, 60_000);
          running = r.claimed;
        }
        await finishExecutions(c, task, outcomes(running));
        await claimExecutions(c, me, task, 10, 60_000); // an idle claim's cheap exit too
      };
      await work(6);

      // The table grows (another task's rows, written directly: the plans are what is
      // measured, not this task's counters), as every deployment's does.
      await c.query(`INSERT INTO executions (task, partition, state, payload)
        SELECT 'bystander', i % 2, CASE WHEN i % 3 = 0 THEN 'queued' ELSE 'succeeded' END, '{}' FROM generate_series(1, 60000) i`);
      await enqueue(c, task, Array.from({ length: 40 }, (_, i) => ({ payload: payload(i) })));
      const { delta } = await statsDelta(db.pool, c, `SELECT seq_scan, seq_tup_read FROM pg_stat_user_tables WHERE relname = 'executions'`, () => work(6));
      expect(delta.seq_tup_read).toBe(0);
      expect(delta.seq_scan).toBe(0);
    });
  }
});

describe('settings of the hot-path functions', () => {
  const HOT = ['sluice_claim_rows', 'sluice_cycle', 'sluice_finish_rows', 'sluice_promote_streams', 'sluice_release_oldest', 'sluice_release_rows', 'sluice_run_keys_plus'];
  it('claim, cycle, finish, stream promotion and the releases run with generic plans, seq scans off and JIT off', async () => {
    // jit off: with seq scans off, a plan left with no other path is costed above
    // jit_above_cost and the server would compile the statement with LLVM on every call
    // (the functions' headers say more).
    // plpgsql: its plans are kept for the session (the next test says why not SQL).
    const r = await db.pool.query<{ name: string; lang: string; config: string[] }>(
      `SELECT p.proname AS name, l.lanname AS lang, p.proconfig AS config FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
       WHERE p.proname = ANY ($1) ORDER BY p.proname`,
      [HOT],
    );
    expect(r.rows.map((x) => x.name)).toEqual(HOT);
    for (const x of r.rows) {
      expect(x.lang, x.name).toBe('plpgsql');
      expect(x.config, x.name).toEqual(expect.arrayContaining(['plan_cache_mode=force_generic_plan', 'enable_seqscan=off', 'jit=off']));
    }
  });

  it('no engine function is a VOLATILE LANGUAGE sql one (parsed and planned again on every call)', async () => {
    // Postgres 15 keeps a SQL function's plan only for the calling statement's run, so one
    // called from plpgsql (or by the client) is planned anew each time: the finish's release
    // spent 1.6 ms in three such functions per call, 0.4 ms as plpgsql (docs/benchmarks.md,
    // twentieth session). IMMUTABLE/STABLE single expressions stay SQL: the planner inlines them.
    const sql = await db.pool.query<{ name: string }>(
      `SELECT p.proname AS name FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
       WHERE p.proname LIKE 'sluice\\_%' AND l.lanname = 'sql' AND p.provolatile = 'v' ORDER BY 1`,
    );
    expect(sql.rows.map((x) => x.name)).toEqual([]);
  });
});
