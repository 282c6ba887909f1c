// Folds one roll-up resolution into a coarser one (60 s → 5 min, 5 min → 1 h), for
// source buckets at or after `from` (a target bucket start, so target buckets are
// recomputed whole). Same aggregate shape as rollup-metric-samples.ts, composed:
// counts and depth_sum add, maxima take the max, "last" takes the value of the source
// bucket with the latest sample. Reads the source by metric_rollups_retention_idx
// (resolution_s, bucket): an open hour is ≤ 12 source rows per partition.
import type { Db } from './pool';
import type { RollupResolution } from '../core/rollup-buckets';
import { OVERWRITE_BUCKET, ROLLUP_COLUMNS } from './rollup-metric-samples';

export async function rollupMetricRollups(db: Db, target: RollupResolution, source: RollupResolution, from: Date): Promise<number> {
  if (target <= source || target % source !== 0) throw new RangeError(`cannot roll ${source}s buckets into ${target}s buckets`);
  const r = await db.query(
    `INSERT INTO metric_rollups (${ROLLUP_COLUMNS})
     SELECT $1::int, s.task, date_bin(make_interval(secs => $1::int), s.bucket, timestamptz 'epoch') AS b, s.partition,
            sum(s.samples), sum(s.covered_ms), max(s.last_at),
            (array_agg(s.depth_last ORDER BY s.last_at DESC))[1], max(s.depth_max), sum(s.depth_sum),
            (array_agg(s.in_flight_last ORDER BY s.last_at DESC))[1], max(s.in_flight_max), max(s.spilled_max),
            sum(s.arrivals), sum(s.processed), sum(s.failed), sum(s.retried), sum(s.dead_lettered),
            sum(s.shed), sum(s.rejected), max(s.latency_p50_ms), max(s.latency_p99_ms), sum(s.canceled),
            sum(s.spills), sum(s.throttled), max(s.wait_p99_ms), max(s.run_p99_ms), max(s.rate_held_max)
     FROM metric_rollups s
     WHERE s.resolution_s = $2 AND s.bucket >= $3
     GROUP BY s.task, b, s.partition
     ${OVERWRITE_BUCKET}`,
    [target, source, from],
  );
  return r.rowCount ?? 0;
}
