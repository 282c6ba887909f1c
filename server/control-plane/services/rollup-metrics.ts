// Maintenance service: rolls coordinators' raw metric samples up into 10 s, 1 min,
// 5 min and 1 h buckets (per partition, then folded per task for the charts) (finer first: each coarse resolution reads the one below it,
// see core ROLLUP_SOURCE), advances each resolution's cursor in the same transaction
// as its buckets, then applies retention. Charts read only these buckets.
import type pg from 'pg';
import type { ControlPlaneService } from '../service';
import { withTransaction } from '../../db/pool';
import { ROLLUP_RESOLUTIONS_S, ROLLUP_SOURCE, rollupWindow } from '../../core/rollup-buckets';
import { rollupMetricSamples } from '../../db/rollup-metric-samples';
import { rollupMetricRollups } from '../../db/rollup-metric-rollups';
import { rollupMetricSeries } from '../../db/rollup-metric-series';
import { advanceRollupState, readRollupState } from '../../db/rollup-state';
import { pruneMetrics, type PruneResult } from '../../db/prune-metrics';

/** Samples may be written a little after their `at`; each run re-reads this much. */
export const SAMPLE_LATENESS_MS = 30_000;
/** Raw samples are kept this long (the 1-minute roll-up reads them for catch-up). */
export const RAW_SAMPLE_RETENTION_MS = 24 * 3600_000;

export interface RollupRunResult {
  buckets: Record<string, number>;
  pruned: PruneResult;
}

/**
 * One run. `rebuild` ignores the cursors and recomputes every resolution over its whole
 * retention: for back-filled samples (imports, seeds) whose `at` is older than the
 * lateness allowance, which a normal tick would not revisit.
 */
export async function rollupMetrics(pool: pg.Pool, now: Date, opts: { rebuild?: boolean } = {}): Promise<RollupRunResult> {
  const state = opts.rebuild ? new Map<number, Date>() : await readRollupState(pool);
  const buckets: Record<string, number> = {};
  for (const res of ROLLUP_RESOLUTIONS_S) {
    const { fromMs } = rollupWindow(now.getTime(), state.get(res)?.getTime() ?? null, res, SAMPLE_LATENESS_MS);
    const from = new Date(fromMs);
    const source = ROLLUP_SOURCE[res];
    buckets[`${res}s`] = await withTransaction(pool, async (c) => {
      const n = source === 'samples' ? await rollupMetricSamples(c, res, from) : await rollupMetricRollups(c, res, source, from);
      await rollupMetricSeries(c, res, from);
      await advanceRollupState(c, res, now);
      return n;
    });
  }
  const pruned = await pruneMetrics(pool, now, RAW_SAMPLE_RETENTION_MS);
  return { buckets, pruned };
}

export const rollupMetricsService: ControlPlaneService = {
  name: 'rollup-metrics',
  intervalMs: 10_000,
  mode: 'steps',
  leaseMs: 60_000,
  run: (ctx) => rollupMetrics(ctx.pool, ctx.now),
};
