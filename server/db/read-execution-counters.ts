// The live counters behind the executions list's totals, never a count over executions:
// partition_stats per task (depth = queued incl. scheduled + blocked, in_flight, spilled)
// and, for a group key, its group_slots row(s) (queued + blocked, in_flight; through
// group_slot_counts: with the moves not yet folded) across tasks
// or for one task. One row each per (task, partition) / (task, key): counter reads.
import type { Db } from './pool';

export interface ExecutionCounters {
  /** queued (incl. scheduled) + blocked */
  depth: number;
  running: number;
  spilled: number;
}

export async function readTaskCounters(db: Db, task: string | null): Promise<ExecutionCounters> {
  const r = await db.query<{ depth: number; running: number; spilled: number }>(
    `SELECT coalesce(sum(greatest(depth, 0)), 0)::bigint AS depth, coalesce(sum(greatest(in_flight, 0)), 0)::bigint AS running,
            coalesce(sum(greatest(spilled, 0)), 0)::bigint AS spilled
       FROM partition_stats WHERE ($1::text IS NULL OR task = $1)`,
    [task],
  );
  return r.rows[0]!;
}

export async function readGroupKeyCounters(db: Db, task: string | null, groupName: string, groupKey: string): Promise<{ queued: number; running: number }> {
  const r = await db.query<{ queued: number; running: number }>(
    `SELECT coalesce(sum(greatest(queued, 0)), 0)::bigint AS queued, coalesce(sum(greatest(in_flight, 0)), 0)::bigint AS running
       FROM group_slot_counts WHERE ($1::text IS NULL OR task = $1) AND group_name = $2 AND group_key = $3`,
    [task, groupName, groupKey],
  );
  return r.rows[0]!;
}
