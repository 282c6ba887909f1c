// Folds raw metric_samples into one resolution's buckets, for samples at or after
// `from` (a bucket start, so every bucket touched is recomputed whole and the upsert can
// overwrite it). Shape: one INSERT … SELECT … GROUP BY (task, bucket, partition) over
// the samples' time index (metric_samples_at_idx), ON CONFLICT overwriting the bucket.
// Levels keep last/max/sum, counts are summed, latency percentiles keep the max (they
// cannot be merged exactly; max is the bound an alert would want); the rate-held gauge
// keeps its max (NULL where no sample of the bucket measured it). A tick recomputes
// only the last few buckets (see core rollupWindow), so this reads ~tens of seconds of
// samples per partition.
import type { Db } from './pool';
import type { RollupResolution } from '../core/rollup-buckets';

const COLUMNS = `resolution_s, task, bucket, partition, samples, covered_ms, last_at, depth_last, depth_max, depth_sum,
  in_flight_last, in_flight_max, spilled_max, arrivals, processed, failed, retried, dead_lettered, shed, rejected,
  latency_p50_ms, latency_p99_ms, canceled, spills, throttled, wait_p99_ms, run_p99_ms, rate_held_max`;

/** The ON CONFLICT clause shared with rollup-metric-rollups.ts: a recomputed bucket replaces the stored one. */
export const OVERWRITE_BUCKET = `ON CONFLICT (resolution_s, task, bucket, partition) DO UPDATE SET
  samples = excluded.samples, covered_ms = excluded.covered_ms, last_at = excluded.last_at,
  depth_last = excluded.depth_last, depth_max = excluded.depth_max, depth_sum = excluded.depth_sum,
  in_flight_last = excluded.in_flight_last, in_flight_max = excluded.in_flight_max, spilled_max = excluded.spilled_max,
  arrivals = excluded.arrivals, processed = excluded.processed, failed = excluded.failed, retried = excluded.retried,
  dead_lettered = excluded.dead_lettered, shed = excluded.shed, rejected = excluded.rejected,
  latency_p50_ms = excluded.latency_p50_ms, latency_p99_ms = excluded.latency_p99_ms, canceled = excluded.canceled,
  spills = excluded.spills, throttled = excluded.throttled, wait_p99_ms = excluded.wait_p99_ms, run_p99_ms = excluded.run_p99_ms,
  rate_held_max = excluded.rate_held_max`;

export const ROLLUP_COLUMNS = COLUMNS;

/** Returns the number of buckets written. */
export async function rollupMetricSamples(db: Db, resolutionS: RollupResolution, from: Date): Promise<number> {
  const r = await db.query(
    `INSERT INTO metric_rollups (${COLUMNS})
     SELECT $1::int, s.task, date_bin(make_interval(secs => $1::int), s.at, timestamptz 'epoch') AS b, s.partition,
            count(*), sum(s.interval_ms), max(s.at),
            (array_agg(s.depth ORDER BY s.at DESC))[1], max(s.depth), sum(s.depth),
            (array_agg(s.in_flight ORDER BY s.at DESC))[1], max(s.in_flight), max(s.spilled),
            sum(s.arrivals), sum(s.processed), sum(s.failed), sum(s.retried), sum(s.dead_lettered),
            sum(s.shed), sum(s.rejected), max(s.latency_p50_ms), max(s.latency_p99_ms), sum(s.canceled),
            sum(s.spills), sum(s.throttled), max(s.wait_p99_ms), max(s.run_p99_ms), max(s.rate_held)
     FROM metric_samples s
     WHERE s.at >= $2
     GROUP BY s.task, b, s.partition
     ${OVERWRITE_BUCKET}`,
    [resolutionS, from],
  );
  return r.rowCount ?? 0;
}
