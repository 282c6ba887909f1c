// Metric arithmetic shared by the coordinator's sampler, the roll-ups and the charts.
// Conventions: a ratio with nothing to divide by is `null` ("no data", which thresholds
// report as 'unknown'), never 0 or NaN, so an idle task does not read as perfectly healthy
// or break a chart.
// Pure: no I/O imports (server/core rule).

function checkDepths(depths: readonly number[]): void {
  depths.forEach((d, i) => {
    if (!Number.isFinite(d) || d < 0) throw new RangeError(`depth ${i} must be a finite number ≥ 0, got ${d}`);
  });
}

/**
 * Partition imbalance: max ÷ mean depth. 1 when all partitions are equal — including
 * when all are empty and when there are no partitions (nothing is imbalanced); with P
 * partitions it is at most P (everything on one).
 */
export function imbalanceRatio(depths: readonly number[]): number {
  checkDepths(depths);
  if (depths.length === 0) return 1;
  let max = 0;
  let sum = 0;
  for (const d of depths) {
    sum += d;
    if (d > max) max = d;
  }
  if (sum === 0) return 1;
  return max / (sum / depths.length);
}

/**
 * The imbalance an alert or a health badge should judge: null (not judged) while the
 * total depth is below `minTotalDepth`, since max ÷ mean of tiny depths (one execution
 * on one of eight partitions reads 8×) says nothing and flips with every claim.
 */
export function flooredImbalance(depths: readonly number[], minTotalDepth: number): number | null {
  const ratio = imbalanceRatio(depths);
  let total = 0;
  for (const d of depths) total += d;
  return total < minTotalDepth ? null : ratio;
}

/** numerator ÷ denominator, or null when the denominator is 0 (no events in the window). */
export function rate(numerator: number, denominator: number): number | null {
  if (!Number.isFinite(numerator) || !Number.isFinite(denominator) || numerator < 0 || denominator < 0) {
    throw new RangeError(`rate needs finite counts ≥ 0, got ${numerator} / ${denominator}`);
  }
  return denominator === 0 ? null : numerator / denominator;
}

/** Events per second over a window, or null for an empty window. */
export function perSecond(count: number, windowMs: number): number | null {
  if (!Number.isFinite(count) || count < 0) throw new RangeError(`count must be a finite number ≥ 0, got ${count}`);
  if (!Number.isFinite(windowMs) || windowMs < 0) throw new RangeError(`windowMs must be a finite number ≥ 0, got ${windowMs}`);
  return windowMs === 0 ? null : (count * 1000) / windowMs;
}

/**
 * The p-th percentile (0 ≤ p ≤ 100) by the nearest-rank method: the smallest value with
 * at least p% of the values at or below it, so it is always one of the samples (p0 = min,
 * p100 = max). null for no samples. The input may be unsorted and is not modified.
 */
export function percentile(values: readonly number[], p: number): number | null {
  if (!Number.isFinite(p) || p < 0 || p > 100) throw new RangeError(`percentile must be within [0, 100], got ${p}`);
  if (values.length === 0) return null;
  for (const v of values) if (Number.isNaN(v)) throw new RangeError('percentile of a list containing NaN');
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1]!;
}

/**
 * How long until a partition (or task) empties at the current net drain rate
 * (completions − arrivals per second): 0 when already empty, null when it is not
 * draining (net rate ≤ 0 or unknown), else ceil(depth ÷ rate) in ms.
 */
export function drainForecastMs(depth: number, drainPerSecond: number | null): number | null {
  if (!Number.isFinite(depth) || depth < 0) throw new RangeError(`depth must be a finite number ≥ 0, got ${depth}`);
  if (depth === 0) return 0;
  if (drainPerSecond === null || !Number.isFinite(drainPerSecond) || drainPerSecond <= 0) return null;
  return Math.ceil((depth / drainPerSecond) * 1000);
}

/** Median of a list (mean of the middle two for even lengths); null when empty. */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}
