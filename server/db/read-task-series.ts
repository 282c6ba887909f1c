// One task's chart data for a time range at one roll-up resolution: one row per bucket,
// with the per-partition depths as arrays (partition order) and the task-total row's
// counts and latency. Shape: a range scan of metric_rollups' primary key
// (resolution_s, task, bucket, …) grouped by bucket, so 64 partitions × 288 buckets come
// back as 288 rows of two arrays instead of 18k rows — the dashboard's hot read
// (bench/dashboard.ts measures it).
import type { Db } from './pool';
import type { RollupResolution } from '../core/rollup-buckets';

export interface SeriesBucketRow {
  bucket: Date;
  /** Partition numbers present in this bucket, ascending, and their max depth. */
  partitions: number[];
  depths: number[];
  /** Task total (partition −1) values; null when the total row is missing. */
  total_depth: number | null;
  covered_ms: number | null;
  arrivals: number | null;
  processed: number | null;
  failed: number | null;
  retried: number | null;
  dead_lettered: number | null;
  latency_p99_ms: number | null;
  latency_p50_ms: number | null;
}

export async function readTaskSeries(db: Db, task: string, resolutionS: RollupResolution, from: Date, to: Date): Promise<SeriesBucketRow[]> {
  const r = await db.query<SeriesBucketRow>(
    `SELECT bucket,
            coalesce(array_agg(partition ORDER BY partition) FILTER (WHERE partition >= 0), '{}') AS partitions,
            coalesce(array_agg(depth_max ORDER BY partition) FILTER (WHERE partition >= 0), '{}') AS depths,
            max(depth_max) FILTER (WHERE partition = -1) AS total_depth,
            max(covered_ms) FILTER (WHERE partition = -1) AS covered_ms,
            max(arrivals) FILTER (WHERE partition = -1) AS arrivals,
            max(processed) FILTER (WHERE partition = -1) AS processed,
            max(failed) FILTER (WHERE partition = -1) AS failed,
            max(retried) FILTER (WHERE partition = -1) AS retried,
            max(dead_lettered) FILTER (WHERE partition = -1) AS dead_lettered,
            max(latency_p99_ms) FILTER (WHERE partition = -1) AS latency_p99_ms,
            max(latency_p50_ms) FILTER (WHERE partition = -1) AS latency_p50_ms
     FROM metric_rollups
     WHERE resolution_s = $1 AND task = $2 AND bucket >= $3 AND bucket <= $4
     GROUP BY bucket
     ORDER BY bucket`,
    [resolutionS, task, from, to],
  );
  // bigint[] arrives as strings (the int8 parser covers scalars only).
  for (const row of r.rows) row.depths = row.depths.map(Number);
  return r.rows;
}
