// Retention for metrics: roll-up buckets older than their resolution's retention
// (by metric_rollups_retention_idx), and raw samples / top-key snapshots older than the
// raw retention once they have been rolled up. metric_top_keys has no time index of its
// own; its key starts (task, at), so the delete walks it per task (one index range each)
// instead of scanning the table.
import type { Db } from './pool';
// eslint-disable-next-line sluice/architecture -- the arrow Db → Core is for types; the resolutions and their retention are core's constants
import { ROLLUP_RESOLUTIONS_S, ROLLUP_RETENTION_MS } from '../core/rollup-buckets';

export interface PruneResult {
  rollups: number;
  samples: number;
  topKeys: number;
}

export async function pruneMetrics(db: Db, now: Date, rawRetentionMs: number): Promise<PruneResult> {
  let rollups = 0;
  for (const res of ROLLUP_RESOLUTIONS_S) {
    const r = await db.query('DELETE FROM metric_rollups WHERE resolution_s = $1 AND bucket < $2', [
      res,
      new Date(now.getTime() - ROLLUP_RETENTION_MS[res]),
    ]);
    rollups += r.rowCount ?? 0;
    await db.query('DELETE FROM metric_rollup_series WHERE resolution_s = $1 AND bucket < $2', [res, new Date(now.getTime() - ROLLUP_RETENTION_MS[res])]);
  }
  const cutoff = new Date(now.getTime() - rawRetentionMs);
  const samples = await db.query('DELETE FROM metric_samples WHERE at < $1', [cutoff]);
  const topKeys = await db.query(
    `DELETE FROM metric_top_keys k USING (SELECT DISTINCT task FROM task_runtime) t
     WHERE k.task = t.task AND k.at < $1`,
    [cutoff],
  );
  return { rollups, samples: samples.rowCount ?? 0, topKeys: topKeys.rowCount ?? 0 };
}
