// Time buckets for metric roll-ups: which resolutions exist, how long each is kept,
// which one a chart's time range reads, and how raw samples map onto buckets. The
// roll-up service and the chart presenters share these so a chart never asks for a
// resolution that was not kept for its range.
// Pure: no I/O imports (server/core rule).

export const ROLLUP_RESOLUTIONS_S = [10, 60, 300, 3600] as const;
export type RollupResolution = (typeof ROLLUP_RESOLUTIONS_S)[number];

/** How long each resolution is kept. Each covers the longest range that reads it. */
export const ROLLUP_RETENTION_MS: Record<RollupResolution, number> = {
  10: 2 * 3600_000, // 15 m and 1 h charts, the evaluator's recent windows
  60: 2 * 86_400_000, // 6 h charts
  300: 8 * 86_400_000, // 24 h charts (and a 7 d fallback)
  3600: 90 * 86_400_000, // 7 d charts
};

/**
 * Where each resolution is computed from: raw samples, or a finer roll-up. Coarse
 * buckets come from the next finer one, so an open 5-minute bucket re-aggregates ≤ 5
 * rows per partition on each tick, and an open hour ≤ 12, instead of every raw sample.
 * Every source is kept longer than its target's open bucket, and the resolutions are
 * rolled in ROLLUP_RESOLUTIONS_S order, so a source is current when its target reads it.
 */
export const ROLLUP_SOURCE: Record<RollupResolution, 'samples' | RollupResolution> = {
  10: 'samples',
  60: 'samples',
  300: 60,
  3600: 300,
};

export const TIME_RANGES = ['15m', '1h', '6h', '24h', '7d'] as const;
export type TimeRange = (typeof TIME_RANGES)[number];

export const TIME_RANGE_MS: Record<TimeRange, number> = {
  '15m': 15 * 60_000,
  '1h': 3600_000,
  '6h': 6 * 3600_000,
  '24h': 86_400_000,
  '7d': 7 * 86_400_000,
};

/** Most points a chart should draw per series: enough detail, bounded payload. */
export const MAX_POINTS_PER_SERIES = 400;

/**
 * The finest resolution that (a) is kept for at least `rangeMs` and (b) gives at most
 * MAX_POINTS_PER_SERIES buckets over the range. Ranges longer than every retention get
 * the coarsest resolution.
 */
export function resolutionForRange(rangeMs: number): RollupResolution {
  if (!Number.isFinite(rangeMs) || rangeMs <= 0) throw new RangeError(`range must be a positive number of ms, got ${rangeMs}`);
  for (const r of ROLLUP_RESOLUTIONS_S) {
    if (ROLLUP_RETENTION_MS[r] >= rangeMs && rangeMs / (r * 1000) <= MAX_POINTS_PER_SERIES) return r;
  }
  return ROLLUP_RESOLUTIONS_S[ROLLUP_RESOLUTIONS_S.length - 1]!;
}

/** Start of the bucket holding `atMs` (buckets are aligned to the Unix epoch). */
export function bucketStart(atMs: number, resolutionS: number): number {
  if (!Number.isFinite(atMs)) throw new RangeError(`time must be finite, got ${atMs}`);
  if (!Number.isInteger(resolutionS) || resolutionS <= 0) throw new RangeError(`resolution must be a whole number of seconds > 0, got ${resolutionS}`);
  const step = resolutionS * 1000;
  return Math.floor(atMs / step) * step;
}

/**
 * The bucket starts a chart shows for [now − range, now]: from the bucket holding the
 * range start to the (open) bucket holding now, so gaps with no samples are explicit
 * points rather than silently joined lines.
 */
export function bucketAxis(nowMs: number, rangeMs: number, resolutionS: number): number[] {
  const first = bucketStart(nowMs - rangeMs, resolutionS);
  const last = bucketStart(nowMs, resolutionS);
  const step = resolutionS * 1000;
  const out: number[] = [];
  for (let t = first; t <= last; t += step) out.push(t);
  return out;
}

/**
 * The window a roll-up run recomputes for one resolution: from the bucket holding
 * `min(rolledUntil, now − lateness)` (samples may arrive a little after their `at`) —
 * but never further back than the resolution's retention — to now.
 */
export function rollupWindow(
  nowMs: number,
  rolledUntilMs: number | null,
  resolutionS: RollupResolution,
  latenessMs: number,
): { fromMs: number; toMs: number } {
  if (!Number.isFinite(latenessMs) || latenessMs < 0) throw new RangeError(`lateness must be a finite number ≥ 0, got ${latenessMs}`);
  const oldest = nowMs - ROLLUP_RETENTION_MS[resolutionS];
  const wanted = rolledUntilMs === null ? oldest : Math.min(rolledUntilMs, nowMs - latenessMs);
  return { fromMs: bucketStart(Math.max(oldest, wanted), resolutionS), toMs: nowMs };
}
