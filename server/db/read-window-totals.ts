// Counts over a recent window (the cards' "now" and the drill-down's rates), summed from
// the 10 s roll-ups rather than raw samples so the read is a short range of
// metric_rollup_series (per task: the task totals folded per bucket) by its (resolution_s,
// bucket) index, or metric_rollups per partition of one task by the primary key.
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

/**
 * Task totals for every task with samples since `since`, from the 10 s series (the
 * roll-up's fold keeps each bucket's task-total counts there, one row per task and
 * bucket; covered_ms is null only for a bucket without a task-total row). Reading
 * metric_rollups instead walks every partition's row of the window to keep one in 65:
 * at 16 tasks × 64 partitions that is 32,000 rows for 500 (bench:dashboard, issue 16).
 */
export async function readTaskWindowTotals(db: Db, since: Date): Promise<WindowTotals[]> {
  const r = await db.query<WindowTotals>(
    `SELECT task, -1 AS partition, ${SUMS}
     FROM metric_rollup_series WHERE resolution_s = 10 AND bucket >= $1 AND covered_ms IS NOT NULL
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
