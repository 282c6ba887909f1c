// Metric status against a task's warning/critical thresholds (DESIGN.md table). A breach
// is strictly greater than the threshold ("> 1000"): a depth of exactly 1000 is ok.
// Rates are fractions (0.1 = 10%), latencies milliseconds, as in the task definition.
// Pure: no I/O imports (server/core rule).
import type { TaskDefinition } from './task-definition';

export type ThresholdStatus = 'ok' | 'warning' | 'critical' | 'unknown';
export type TaskThresholds = TaskDefinition['thresholds'];
export const THRESHOLD_METRICS = ['depth', 'imbalance', 'retryRate', 'dlqRate', 'p99LatencyMs'] as const satisfies readonly (keyof TaskThresholds)[];
/** A metric with warning and critical lines (TaskThresholds' other key, alertAfterMs, is a duration). */
export type ThresholdMetric = (typeof THRESHOLD_METRICS)[number];

export interface ThresholdPair {
  warning: number;
  critical: number;
}

/** null / NaN → 'unknown' (no data); > critical → 'critical'; > warning → 'warning'; else 'ok'. */
export function evaluateThreshold(value: number | null | undefined, t: ThresholdPair): ThresholdStatus {
  if (value === null || value === undefined || Number.isNaN(value)) return 'unknown';
  if (value > t.critical) return 'critical';
  if (value > t.warning) return 'warning';
  return 'ok';
}

const SEVERITY: Record<ThresholdStatus, number> = { unknown: 0, ok: 1, warning: 2, critical: 3 };

/**
 * The most severe of several statuses: critical > warning > ok > unknown. A metric
 * without data does not make a healthy task "unknown"; only all-unknown (or none) is.
 */
export function worstStatus(statuses: readonly ThresholdStatus[]): ThresholdStatus {
  let worst: ThresholdStatus = 'unknown';
  for (const s of statuses) if (SEVERITY[s] > SEVERITY[worst]) worst = s;
  return worst;
}

/** A task's current numbers; null = no data in the window. */
export interface TaskHealthSnapshot {
  /** Deepest partition (depth thresholds are per partition). */
  maxDepth: number | null;
  imbalance: number | null;
  retryRate: number | null;
  dlqRate: number | null;
  p99LatencyMs: number | null;
}

const SNAPSHOT_FIELD: Record<ThresholdMetric, keyof TaskHealthSnapshot> = {
  depth: 'maxDepth',
  imbalance: 'imbalance',
  retryRate: 'retryRate',
  dlqRate: 'dlqRate',
  p99LatencyMs: 'p99LatencyMs',
};

export interface MetricHealth {
  value: number | null;
  status: ThresholdStatus;
  warning: number;
  critical: number;
}

export interface TaskHealth {
  metrics: Record<ThresholdMetric, MetricHealth>;
  worst: ThresholdStatus;
  /** Metrics at warning or critical, most severe first (then in THRESHOLD_METRICS order). */
  breaches: ThresholdMetric[];
}

export function evaluateTaskHealth(thresholds: TaskThresholds, snapshot: TaskHealthSnapshot): TaskHealth {
  const metrics = {} as Record<ThresholdMetric, MetricHealth>;
  for (const m of THRESHOLD_METRICS) {
    const value = snapshot[SNAPSHOT_FIELD[m]];
    const t = thresholds[m];
    metrics[m] = { value, status: evaluateThreshold(value, t), warning: t.warning, critical: t.critical };
  }
  const breaches = THRESHOLD_METRICS.filter((m) => metrics[m].status === 'warning' || metrics[m].status === 'critical').sort(
    (a, b) => SEVERITY[metrics[b].status] - SEVERITY[metrics[a].status],
  );
  return { metrics, worst: worstStatus(THRESHOLD_METRICS.map((m) => metrics[m].status)), breaches };
}
