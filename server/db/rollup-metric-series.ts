// Folds one resolution's per-partition buckets (metric_rollups, just written in the same
// transaction) into one row per (task, bucket) for the charts: partition numbers and
// their max depths as parallel arrays (partition order), the task total's counts,
// latency and rate-held maximum. Reads the buckets ≥ `from` by metric_rollups_retention_idx and upserts by
// the series' primary key, so a tick rewrites only the few buckets it recomputed.
import type { Db } from './pool';
import type { RollupResolution } from '../core/rollup-buckets';

export async function rollupMetricSeries(db: Db, resolutionS: RollupResolution, from: Date): Promise<number> {
  const r = await db.query(
    `INSERT INTO metric_rollup_series AS s (resolution_s, task, bucket, partitions, depths, total_depth, covered_ms,
                                           arrivals, processed, failed, retried, dead_lettered, latency_p50_ms, latency_p99_ms, canceled,
                                           shed, rejected, spills, throttled, wait_p99_ms, run_p99_ms, rate_held)
     SELECT $1::int, task, bucket,
            coalesce(array_agg(partition ORDER BY partition) FILTER (WHERE partition >= 0), '{}'),
            coalesce(array_agg(depth_max ORDER BY partition) FILTER (WHERE partition >= 0), '{}'),
            max(depth_max) FILTER (WHERE partition = -1),
            max(covered_ms) FILTER (WHERE partition = -1),
            max(arrivals) FILTER (WHERE partition = -1),
            max(processed) FILTER (WHERE partition = -1),
            max(failed) FILTER (WHERE partition = -1),
            max(retried) FILTER (WHERE partition = -1),
            max(dead_lettered) FILTER (WHERE partition = -1),
            max(latency_p50_ms) FILTER (WHERE partition = -1),
            max(latency_p99_ms) FILTER (WHERE partition = -1),
            max(canceled) FILTER (WHERE partition = -1),
            max(shed) FILTER (WHERE partition = -1),
            max(rejected) FILTER (WHERE partition = -1),
            max(spills) FILTER (WHERE partition = -1),
            max(throttled) FILTER (WHERE partition = -1),
            max(wait_p99_ms) FILTER (WHERE partition = -1),
            max(run_p99_ms) FILTER (WHERE partition = -1),
            max(rate_held_max) FILTER (WHERE partition = -1)
     FROM metric_rollups
     WHERE resolution_s = $1 AND bucket >= $2
     GROUP BY task, bucket
     ON CONFLICT (resolution_s, task, bucket) DO UPDATE SET
       partitions = excluded.partitions, depths = excluded.depths, total_depth = excluded.total_depth,
       covered_ms = excluded.covered_ms, arrivals = excluded.arrivals, processed = excluded.processed,
       failed = excluded.failed, retried = excluded.retried, dead_lettered = excluded.dead_lettered,
       latency_p50_ms = excluded.latency_p50_ms, latency_p99_ms = excluded.latency_p99_ms, canceled = excluded.canceled,
       shed = excluded.shed, rejected = excluded.rejected, spills = excluded.spills, throttled = excluded.throttled,
       wait_p99_ms = excluded.wait_p99_ms, run_p99_ms = excluded.run_p99_ms, rate_held = excluded.rate_held`,
    [resolutionS, from],
  );
  return r.rowCount ?? 0;
}
