// Chart scales that fit the data: which time range a chart draws when the data is younger
// than the range asked for, the x-domain that starts where the data starts, and a y-scale
// sized to the data with 1-2-5 ticks (duration ticks on time units), whose threshold
// lines are drawn only when they are near the data and otherwise named as off-scale
// markers at the top edge. Before this a depth of 8 was drawn flat against a critical
// line at 6,000, and minutes of data were squeezed into the right edge of a 7 d window.
// Pure: no I/O imports (server/core rule).
import { TIME_RANGES, TIME_RANGE_MS, type TimeRange } from './rollup-buckets';

// ─── x: which range, which domain ──────────────────────────────────────────────────

/**
 * The range a chart draws: the one asked for, or, when the task's data is younger than
 * half of it, the smallest range that still holds all of the data (so a 2-minute-old
 * install asked for 7 d draws 15 m of 10 s buckets rather than one 1 h bucket).
 * `dataSpanMs` = now − the start of the oldest bucket with data; null = no data.
 */
export function fitRange(requested: TimeRange, dataSpanMs: number | null): TimeRange {
  if (dataSpanMs === null || !(dataSpanMs >= 0)) return requested;
  const want = TIME_RANGE_MS[requested];
  if (dataSpanMs * 2 > want) return requested;
  for (const r of TIME_RANGES) {
    if (TIME_RANGE_MS[r] >= dataSpanMs && TIME_RANGE_MS[r] <= want) return r;
  }
  return requested;
}

/** The x-axis never spans less than this many buckets (or 2 minutes), so a first sample is not one fat point. */
export const MIN_FIT_BUCKETS = 6;
const MIN_FIT_MS = 120_000;

/**
 * The x-domain: [from, to] of the range, or — when the first bucket with data starts
 * later — from that bucket (less one bucket of margin) to `to`. `fitted` says the axis
 * was shortened, so the chart can say "data since …".
 */
export function fitTimeDomain(from: number, to: number, firstDataAt: number | null, resolutionMs: number): { from: number; to: number; fitted: boolean } {
  if (firstDataAt === null || !(to > from)) return { from, to, fitted: false };
  const minSpan = Math.max(MIN_FIT_BUCKETS * resolutionMs, MIN_FIT_MS);
  const start = Math.min(firstDataAt - resolutionMs, to - minSpan);
  if (start <= from) return { from, to, fitted: false };
  return { from: start, to, fitted: true };
}

// ─── y: nice ticks fitted to the data ──────────────────────────────────────────────

export type ScaleKind = 'count' | 'ratio' | 'percent' | 'ms' | 'rate';

/** The smallest 1-2-5 × 10^k that is ≥ raw. */
export function niceStep(raw: number): number {
  if (!(raw > 0) || !Number.isFinite(raw)) return 1;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const f = raw / mag;
  // Round the factor first so 0.30000000000000004 / 0.1 does not become 5.
  const step = (f <= 1 + 1e-9 ? 1 : f <= 2 + 1e-9 ? 2 : f <= 5 + 1e-9 ? 5 : 10) * mag;
  return Number(step.toPrecision(12));
}

/** Duration steps: 1-2-5 below a second, then the units people read on a clock. */
const DURATION_STEPS_MS = [
  1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000, 900_000, 1_800_000, 3_600_000,
  7_200_000, 10_800_000, 21_600_000, 43_200_000, 86_400_000, 172_800_000, 604_800_000,
];

export function durationStep(rawMs: number): number {
  return DURATION_STEPS_MS.find((s) => s >= rawMs - 1e-9) ?? Math.ceil(rawMs / 604_800_000) * 604_800_000;
}

/** The least top of the y-axis when every value is 0 and no threshold is near. */
const FLOOR_TOP: Record<ScaleKind, number> = { count: 4, ratio: 1, percent: 0.01, ms: 1_000, rate: 1 };

/** A threshold is drawn as a line when it is at most this many times the data's peak. */
export const THRESHOLD_REACH = 2;

export interface YThreshold {
  name: 'warning' | 'critical';
  value: number;
}

export interface YScale {
  domain: [number, number];
  ticks: number[];
  step: number;
  /** Thresholds drawn as lines inside the plot. */
  shown: YThreshold[];
  /** Thresholds above the domain: named at the top edge instead of stretching the axis. */
  offScale: YThreshold[];
}

/**
 * A y-scale from 0 to a nice top over the data's peak, with about `tickCount` intervals
 * of a 1-2-5 step (whole numbers for counts, clock units for durations). A threshold is
 * brought into the domain when it is within THRESHOLD_REACH × the peak (so a depth of 800
 * against a warning of 1,000 shows the line); further away it is off-scale.
 */
export function yScale(dataMax: number | null, kind: ScaleKind, thresholds: YThreshold[] = [], tickCount = 4): YScale {
  const peak = dataMax !== null && Number.isFinite(dataMax) && dataMax > 0 ? dataMax : 0;
  const near = thresholds.filter((t) => Number.isFinite(t.value) && t.value > 0 && (peak > 0 ? t.value <= peak * THRESHOLD_REACH : false));
  // All zero (or no data): show the warning line as the top when there is one, so a
  // flat 0 reads "well below warning" rather than filling the plot.
  const lowest = thresholds.filter((t) => Number.isFinite(t.value) && t.value > 0).sort((a, b) => a.value - b.value)[0];
  if (peak === 0 && lowest) near.push(lowest);
  const want = Math.max(peak, ...near.map((t) => t.value), peak === 0 && !lowest ? FLOOR_TOP[kind] : 0);
  const raw = want / tickCount;
  let step = kind === 'ms' ? durationStep(raw) : niceStep(raw);
  if (kind === 'count') step = Math.max(1, Math.ceil(step));
  let top = Math.ceil(want / step - 1e-9) * step;
  if (top <= 0) top = step;
  // The line must sit under the top, not on the frame: leave a step above a threshold
  // that lands exactly on it, so its label has room.
  if (near.some((t) => t.value >= top - 1e-9 * top)) top += step;
  const ticks: number[] = [];
  for (let v = 0; v <= top + step / 2; v += step) ticks.push(Number(v.toPrecision(12)));
  const shown = thresholds.filter((t) => t.value <= top);
  const offScale = thresholds.filter((t) => t.value > top);
  return { domain: [0, ticks[ticks.length - 1]!], ticks, step, shown, offScale };
}

/** The largest finite value across the rows and keys (null when there is none). */
export function peakOf(rows: readonly Record<string, number | null | undefined>[], keys: readonly string[]): number | null {
  let max: number | null = null;
  for (const r of rows) {
    for (const k of keys) {
      const v = r[k];
      if (typeof v === 'number' && Number.isFinite(v) && (max === null || v > max)) max = v;
    }
  }
  return max;
}

/** The first `t` whose row has any finite value under `keys` (null when none has). */
export function firstDataAt(rows: readonly ({ t: number } & Record<string, number | null | undefined>)[], keys: readonly string[]): number | null {
  for (const r of rows) if (keys.some((k) => typeof r[k] === 'number' && Number.isFinite(r[k]))) return r.t;
  return null;
}

// ─── threshold labels: where each line's name goes (components/charts/threshold-chart.tsx) ───
/** Pixels between two labels on lines before they would print over each other (10 px text). */
export const LABEL_GAP_PX = 13;
/** The chart's plot height: the figure's height less padding (4), top margin (16) and the x-axis (30). */
export const plotHeightOf = (height: number) => Math.max(1, height - 4 - 16 - 30);

/**
 * Where each shown threshold's label goes: merged when the two lines are closer than a
 * label's height; below its line when a line sits in the top strip where the off-scale
 * names are printed.
 */
export function thresholdLabelLayout(
  thresholds: { warning: number; critical: number },
  domain: [number, number],
  shown: readonly { name: 'warning' | 'critical' }[],
  offScale: boolean,
  height: number,
): { merged: boolean; below: Record<'warning' | 'critical', boolean> } {
  const plot = plotHeightOf(height);
  const span = domain[1] - domain[0];
  const px = (v: number) => (span > 0 ? ((domain[1] - v) / span) * plot : 0);
  const merged = shown.length > 1 && thresholds.warning !== thresholds.critical && Math.abs(px(thresholds.warning) - px(thresholds.critical)) < LABEL_GAP_PX;
  const near = (v: number) => offScale && v <= domain[1] && px(v) < LABEL_GAP_PX + 2;
  return { merged, below: { warning: near(thresholds.warning), critical: near(thresholds.critical) } };
}

