// The oldest roll-up bucket of a task at one resolution since a time: one probe of
// metric_rollup_series' primary key (resolution_s, task, bucket), for fitting a chart's
// range to a young task's data without reading the whole range first.
import type { Db } from './pool';
import type { RollupResolution } from '../core/rollup-buckets';

export async function readFirstRollupBucket(db: Db, task: string, resolutionS: RollupResolution, since: Date): Promise<Date | null> {
  const r = await db.query<{ bucket: Date }>(
    `SELECT bucket FROM metric_rollup_series WHERE resolution_s = $1 AND task = $2 AND bucket >= $3 ORDER BY bucket LIMIT 1`,
    [resolutionS, task, since],
  );
  return r.rows[0]?.bucket ?? null;
}
