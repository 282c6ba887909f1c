// Counts over a recent window (the cards' "now" and the drill-down's rates), summed from
// the 10 s roll-ups rather than raw samples so the read is a short range of
// metric_rollups: per task from the task-total rows (partition −1) across tasks by the
// (resolution_s, bucket) index, or per partition of one task by the primary key.
import type { Db } from './pool';

export interface WindowTotals {
  task: string;
  partition: number;
  arrivals: number;
  processed: number;
  failed: number;
  retried: number;
  dead_lettered: number;
  covered_ms: number;
  latency_p99_ms: number | null;
}

const SUMS = `sum(arrivals)::bigint AS arrivals, sum(processed)::bigint AS processed, sum(failed)::bigint AS failed,
  sum(retried)::bigint AS retried, sum(dead_lettered)::bigint AS dead_lettered, sum(covered_ms)::bigint AS covered_ms,
  max(latency_p99_ms) AS latency_p99_ms`;

/** Task totals for every task with samples since `since`. */
export async function readTaskWindowTotals(db: Db, since: Date): Promise<WindowTotals[]> {
  const r = await db.query<WindowTotals>(
    `SELECT task, -1 AS partition, ${SUMS}
     FROM metric_rollups WHERE resolution_s = 10 AND bucket >= $1 AND partition = -1
     GROUP BY task`,
    [since],
  );
  return r.rows;
}

/** Per-partition totals of one task since `since` (partition −1 included). */
export async function readPartitionWindowTotals(db: Db, task: string, since: Date): Promise<WindowTotals[]> {
  const r = await db.query<WindowTotals>(
    `SELECT task, partition, ${SUMS}
     FROM metric_rollups WHERE resolution_s = 10 AND task = $1 AND bucket >= $2
     GROUP BY task, partition ORDER BY partition`,
    [task, since],
  );
  return r.rows;
}
