// Helpers for engine integration tests: apply a config, stand up a "coordinator" row that
// owns partitions (for SQL-level tests that claim without a coordinator process), and
// read counters.
import type pg from 'pg';
import { applyConfig } from '../../server/services/config-versions';
import { SYSTEM_ACTOR } from '../../server/db/audit';
import type { TaskDefinitionInput } from '../../server/core/task-definition';
import { registerCoordinator } from '../../server/db/coordinator-membership';
import { syncOwnership } from '../../server/db/partition-ownership';
import type { Db } from '../../server/db/pool';
import { foldSlotDeltas, tasksWithSlotDeltas } from '../../server/db/fold-slot-deltas';

export async function applyTasks(pool: Db, tasks: TaskDefinitionInput[], message = 'test') {
  return applyConfig(pool, SYSTEM_ACTOR, { tasks }, { message });
}

/** A registered member owning the given partitions (all of each task's when omitted). */
export async function fakeCoordinator(
  pool: Db,
  tasks: string[],
  partitions?: Record<string, number[]>,
): Promise<string> {
  const id = await registerCoordinator(pool, { name: `test-${Math.random().toString(36).slice(2, 8)}`, host: 'test', pid: process.pid, tasks, slots: 100, metricsPort: null });
  const counts = await pool.query<{ task: string; partitions: number }>('SELECT task, partitions FROM task_runtime WHERE task = ANY ($1)', [tasks]);
  const wanted = counts.rows.flatMap((r) =>
    (partitions?.[r.task] ?? Array.from({ length: r.partitions }, (_, i) => i)).map((p) => ({ task: r.task, partition: p })),
  );
  await syncOwnership(pool, id, wanted, 60_000);
  return id;
}

/** Folds every task's logged slot counter moves into group_slots, as the coordinators'
 *  folders (and the slot-fold service) do: for tests that claim and finish without a
 *  coordinator process and then read the per-key counters. */
export async function foldAllSlotDeltas(pool: Db): Promise<void> {
  for (const task of await tasksWithSlotDeltas(pool)) await foldSlotDeltas(pool, task);
}

export async function partitionStats(pool: pg.Pool, task: string) {
  const r = await pool.query<{ partition: number; depth: number; in_flight: number; spilled: number; shed_total: number; rejected_total: number; processed_total: number }>(
    'SELECT ps.partition, ps.depth, ps.in_flight, ps.spilled, ps.shed_total, ps.rejected_total, po.processed_total FROM partition_stats ps JOIN partition_outcomes po USING (task, partition) WHERE ps.task = $1 ORDER BY ps.partition',
    [task],
  );
  return r.rows;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A test that moves a task's queued rows back in claim order behind the engine's back
 * (run_at set into the past by SQL) must lower the claim floors too, as every engine path
 * that makes a row claimable does (migration 20261203000100000_claim_floor): else the claim
 * starts its scan above the moved rows, until the reconciler repairs the floor.
 */
export async function lowerClaimFloors(pool: Db, task: string): Promise<void> {
  await pool.query(`UPDATE partition_stats SET claim_floor = '-infinity' WHERE task = $1`, [task]);
}

/** How the numeric columns of the statistics query `sql` (one row, read through `stats`)
 *  moved while `fn` ran on the connection `c`. Statistics reach the shared counters when a
 *  backend flushes them (PG 15: pg_stat_force_next_flush on that backend, applied at the
 *  end of its next transaction, else up to seconds later when it goes idle): both ends of
 *  the window flush `c`, and `stats` drops its cached snapshot before each read. Run the
 *  test's earlier work on `c` too, so nothing from before lands inside the window. */
export async function statsDelta<C extends pg.ClientBase, T>(
  stats: pg.Pool,
  c: C,
  sql: string,
  fn: (c: C) => Promise<T>,
): Promise<{ delta: Record<string, number>; value: T }> {
  const flush = async () => {
    await c.query('SELECT pg_stat_force_next_flush()');
    await c.query('SELECT 1');
  };
  const read = async () => {
    await stats.query('SELECT pg_stat_clear_snapshot()');
    const r = await stats.query<Record<string, string | number>>(sql);
    return Object.fromEntries(Object.entries(r.rows[0]!).map(([k, v]) => [k, Number(v)]));
  };
  await flush();
  const before = await read();
  const value = await fn(c);
  await flush();
  const after = await read();
  return { delta: Object.fromEntries(Object.keys(after).map((k) => [k, after[k]! - before[k]!])), value };
}

/** What `executions_claim_idx` handed out while `fn` ran on a connection of `work`, read
 *  through `stats`: `reads` = index entries returned (idx_tup_read, dead ones included),
 *  `fetches` = live rows fetched through them (idx_tup_fetch). Dead entries (rows that
 *  left the index) stay until a scan finds them dead to every snapshot and marks them,
 *  which a busy server can delay; live fetches are what a scan of a backlog costs.
 *  Give `work` a single connection (see statsDelta). */
export async function claimIndexReads<T>(stats: pg.Pool, work: pg.Pool, fn: (c: pg.PoolClient) => Promise<T>): Promise<{ reads: number; fetches: number; value: T }> {
  const c = await work.connect();
  try {
    const { delta, value } = await statsDelta(
      stats,
      c,
      `SELECT idx_tup_read AS reads, idx_tup_fetch AS fetches FROM pg_stat_user_indexes WHERE indexrelname = 'executions_claim_idx'`,
      fn,
    );
    return { reads: delta.reads!, fetches: delta.fetches!, value };
  } finally {
    c.release();
  }
}
