// One task's chart data for a time range at one roll-up resolution: one row per bucket
// from metric_rollup_series (the roll-up service folds the partitions of each bucket
// into arrays), a range of its primary key (resolution_s, task, bucket). Grouping the
// per-partition rows at read time instead cost ~20 ms of server time plus transfer for
// 64 partitions × 360 buckets (23k rows); this reads 360 rows, aggregated into one json
// value. bench/dashboard.ts measures the whole Overview call.
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
  /** Backpressure outcomes of the task total (null in buckets rolled before they were kept). */
  shed: number | null;
  rejected: number | null;
  spills: number | null;
  throttled: number | null;
  wait_p99_ms: number | null;
  run_p99_ms: number | null;
  /** Rate-held executions of the task total, max in the bucket (null before it was sampled). */
  rate_held: number | null;
}

type N = number | null;
type SeriesTuple = [number, number[], number[], N, N, N, N, N, N, N, N, N, N, N, N, N, N, N, N];

export async function readTaskSeries(db: Db, task: string, resolutionS: RollupResolution, from: Date, to: Date): Promise<SeriesBucketRow[]> {
  // The whole range comes back as one json value (parsed by JSON.parse, natively): node-pg's
  // per-row, per-array parsing cost ~7 ms of CPU for 360 buckets × 64 partitions, this ~2.
  const r = await db.query<{ j: SeriesTuple[] }>(
    `SELECT coalesce(json_agg(json_build_array(
              (extract(epoch FROM bucket) * 1000)::bigint, partitions, depths, total_depth, covered_ms,
              arrivals, processed, failed, retried, dead_lettered, latency_p99_ms, latency_p50_ms,
              shed, rejected, spills, throttled, wait_p99_ms, run_p99_ms, rate_held) ORDER BY bucket), '[]') AS j
     FROM metric_rollup_series
     WHERE resolution_s = $1 AND task = $2 AND bucket >= $3 AND bucket <= $4`,
    [resolutionS, task, from, to],
  );
  return r.rows[0]!.j.map((x) => ({
    bucket: new Date(x[0]),
    partitions: x[1],
    depths: x[2],
    total_depth: x[3],
    covered_ms: x[4],
    arrivals: x[5],
    processed: x[6],
    failed: x[7],
    retried: x[8],
    dead_lettered: x[9],
    latency_p99_ms: x[10],
    latency_p50_ms: x[11],
    shed: x[12],
    rejected: x[13],
    spills: x[14],
    throttled: x[15],
    wait_p99_ms: x[16],
    run_p99_ms: x[17],
    rate_held: x[18],
  }));
}
