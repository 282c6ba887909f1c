// The alert evaluator's window: per (task, partition) sums of raw metric samples since
// `since` (partition −1 = task totals, with the max p99). Raw samples rather than
// roll-ups so an evaluation never waits on the roll-up service; the window is a few
// minutes, read through metric_samples_at_idx.
import type { Db } from './pool';
import type { WindowTotals } from '../core/alert-observation';

/** A task's (or partition's) window totals: core WindowTotals plus where they come from. */
export interface SampleWindowRow extends WindowTotals {
  task: string;
  partition: number;
  samples: number;
}

export async function readSampleWindowTotals(db: Db, since: Date): Promise<SampleWindowRow[]> {
  const r = await db.query<SampleWindowRow>(
    `SELECT task, partition, count(*)::int AS samples,
            sum(arrivals)::bigint AS arrivals, sum(processed)::bigint AS processed, sum(failed)::bigint AS failed,
            sum(retried)::bigint AS retried, sum(dead_lettered)::bigint AS dead_lettered, sum(shed)::bigint AS shed,
            sum(rejected)::bigint AS rejected, sum(spills)::bigint AS spills, sum(throttled)::bigint AS throttled,
            max(latency_p99_ms) AS latency_p99_ms, max(wait_p99_ms) AS wait_p99_ms, max(run_p99_ms) AS run_p99_ms
     FROM metric_samples WHERE at > $1
     GROUP BY task, partition`,
    [since],
  );
  return r.rows;
}
