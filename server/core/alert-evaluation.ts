// What the alert evaluator decides before it touches the state machine: the policy
// (timings, hot-partition and hot-key sensitivity, hysteresis), whether a value is
// breaching given the alert's current state, its severity, and the dedup key of an
// alert. stepAlert (alert-rules.ts) then handles for-duration, clear-duration and events.
// Pure: no I/O imports (server/core rule).
import type { ThresholdPair, ThresholdMetric, TaskThresholds } from './thresholds';
import type { AlertRuleTiming } from './alert-rules';

export const ALERT_RULES = [
  'depth', 'imbalance', 'retryRate', 'dlqRate', 'p99LatencyMs', 'hotPartition', 'hotKey',
  // backpressure outcomes and wait time (alert-observation.ts)
  'shedPerSecond', 'rejectRate', 'waitP99Ms',
  // fleet health (alert-fleet-rules.ts): task '' unless the rule is about one task
  'coordinatorStale', 'unownedPartitions', 'configBehind', 'maintenanceFailing', 'reconcileRepairs',
  'dlqNearFull', 'dbConnections', 'vacuumHorizon', 'deadTuples',
  // the task's circuit breaker is not closed (issue 23, alert-observation.ts)
  'circuitOpen',
  // a group key's own wait lines (the per-key precedence level, core/fleet-defaults.ts)
  'keyWait',
  // a stream's head holding the work behind it (alert-observation.ts)
  'streamBlocked',
  // executions parked by the spill policy, not yet back in the queue (alert-observation.ts)
  'spillBacklog',
] as const;
export type AlertRule = (typeof ALERT_RULES)[number];
export type AlertSeverity = 'warning' | 'critical';

/** Filters of the Alerts list: open = firing + acknowledged. */
export const ALERT_LIST_STATUSES = ['open', 'firing', 'acknowledged', 'resolved', 'all'] as const;

export interface AlertPolicy {
  /** Breaching continuously this long before an alert fires, unless the task sets thresholds.alertAfterMs. */
  forMs: number;
  /** Clear continuously this long before it resolves on its own. */
  clearForMs: number;
  /**
   * Hysteresis: once an alert is open, the value must fall below
   * threshold × (1 − hysteresis) to count as clear, so a value hovering at the line
   * does not open and close episodes.
   */
  hysteresis: number;
  /** Window over which rates (retry, DLQ, arrivals) and p99 are read. */
  windowMs: number;
  hotPartition: { factor: number; floorDepth: number };
  hotKey: { dominantShare: number; floor: number };
  /** Imbalance is not judged while the task's total depth is below this (a ratio of tiny depths flaps). */
  imbalanceMinTotalDepth: number;
  /**
   * Backpressure outcomes over the window: shed executions per second (dropped work:
   * any shed is critical by default) and rejected ÷ offered (arrivals + rejected).
   */
  backpressure: { shedPerSecond: ThresholdPair; rejectRate: ThresholdPair };
  /** p99 wait (ready at run_at → claimed); the task's p99LatencyMs lines judge run time. */
  waitP99Ms: ThresholdPair;
  /**
   * Key-wait lines for every group key without its own (keyPolicies[key].waitMs): the
   * key's oldest due execution. null = none (built-in): only keys with their own lines,
   * or tasks / a fleet that set these, raise keyWait.
   */
  keyWaitMs: ThresholdPair | null;
  /** How long the work behind a stream's head may wait (the longest-blocked stream of a task). */
  streamBlockedMs: ThresholdPair;
  /** Executions of a task parked in the overflow table by the spill policy (all partitions). */
  spillBacklog: ThresholdPair;
}

/** How often the control plane's evaluate-alerts service runs: the resolution of every for/clear duration. */
export const ALERT_EVALUATION_INTERVAL_MS = 15_000;

export const DEFAULT_ALERT_POLICY: AlertPolicy = {
  forMs: 60_000,
  clearForMs: 120_000,
  hysteresis: 0.1,
  windowMs: 5 * 60_000,
  hotPartition: { factor: 3, floorDepth: 100 },
  hotKey: { dominantShare: 0.5, floor: 50 },
  imbalanceMinTotalDepth: 100,
  backpressure: { shedPerSecond: { warning: 0, critical: 0 }, rejectRate: { warning: 0.01, critical: 0.25 } },
  waitP99Ms: { warning: 30_000, critical: 300_000 },
  keyWaitMs: null,
  streamBlockedMs: { warning: 300_000, critical: 1_800_000 },
  spillBacklog: { warning: 1000, critical: 10_000 },
};

export function checkPolicy(p: AlertPolicy): AlertPolicy {
  const bad = (name: string, v: number) => {
    throw new RangeError(`alert policy ${name} is invalid: ${v}`);
  };
  if (!(p.forMs >= 0) || !Number.isFinite(p.forMs)) bad('forMs', p.forMs);
  if (!(p.clearForMs >= 0) || !Number.isFinite(p.clearForMs)) bad('clearForMs', p.clearForMs);
  if (!(p.hysteresis >= 0 && p.hysteresis < 1)) bad('hysteresis', p.hysteresis);
  if (!(p.windowMs > 0) || !Number.isFinite(p.windowMs)) bad('windowMs', p.windowMs);
  if (!(p.hotPartition.factor >= 1)) bad('hotPartition.factor', p.hotPartition.factor);
  if (!(p.hotPartition.floorDepth >= 0)) bad('hotPartition.floorDepth', p.hotPartition.floorDepth);
  if (!(p.hotKey.dominantShare > 0 && p.hotKey.dominantShare <= 1)) bad('hotKey.dominantShare', p.hotKey.dominantShare);
  if (!(p.hotKey.floor >= 0)) bad('hotKey.floor', p.hotKey.floor);
  if (!(p.imbalanceMinTotalDepth >= 0) || !Number.isFinite(p.imbalanceMinTotalDepth)) bad('imbalanceMinTotalDepth', p.imbalanceMinTotalDepth);
  const pair = (name: string, t: ThresholdPair) => {
    if (!(t.warning >= 0 && t.critical >= t.warning) || !Number.isFinite(t.critical)) bad(name, t.warning);
  };
  pair('backpressure.shedPerSecond', p.backpressure.shedPerSecond);
  pair('backpressure.rejectRate', p.backpressure.rejectRate);
  pair('waitP99Ms', p.waitP99Ms);
  if (p.keyWaitMs !== null) pair('keyWaitMs', p.keyWaitMs);
  pair('streamBlockedMs', p.streamBlockedMs);
  pair('spillBacklog', p.spillBacklog);
  return p;
}

/**
 * The for/clear durations for one task's alerts: its own `thresholds.alertAfterMs` when
 * set (a demo, or a task where a minute of a breach is already too late), else the
 * policy's; clearing likewise takes its own `thresholds.clearAfterMs`, else the policy's.
 */
export function alertTiming(policy: Pick<AlertPolicy, 'forMs' | 'clearForMs'>, thresholds: Pick<TaskThresholds, 'alertAfterMs' | 'clearAfterMs'> | undefined): AlertRuleTiming {
  return { forMs: thresholds?.alertAfterMs ?? policy.forMs, clearForMs: thresholds?.clearAfterMs ?? policy.clearForMs };
}

/** A threshold as seen by an alert that is open (lowered by hysteresis) or not. */
export function effectiveThreshold(threshold: number, open: boolean, hysteresis: number): number {
  return open ? threshold * (1 - hysteresis) : threshold;
}

/**
 * A threshold rule's observation: breaching when the value is above the warning line
 * (the lowered line while the alert is open); severity from the plain lines. No data
 * (null) is not a breach: an idle task does not page anyone.
 */
export function thresholdBreach(
  value: number | null,
  t: ThresholdPair,
  open: boolean,
  hysteresis: number,
): { breaching: boolean; severity: AlertSeverity } {
  if (value === null || Number.isNaN(value)) return { breaching: false, severity: 'warning' };
  const breaching = value > effectiveThreshold(t.warning, open, hysteresis);
  return { breaching, severity: value > t.critical ? 'critical' : 'warning' };
}

/** The sensitivity a detector uses for one subject: relaxed by hysteresis while open. */
export function relaxedHotPartition(p: AlertPolicy['hotPartition'], hysteresis: number): AlertPolicy['hotPartition'] {
  return { factor: Math.max(1, p.factor * (1 - hysteresis)), floorDepth: p.floorDepth * (1 - hysteresis) };
}

export function relaxedHotKey(p: AlertPolicy['hotKey'], hysteresis: number): AlertPolicy['hotKey'] {
  return { dominantShare: p.dominantShare * (1 - hysteresis), floor: p.floor * (1 - hysteresis) };
}

/**
 * Hot partitions and hot keys are warnings, critical once the ratio (depth or arrivals ÷
 * sibling median, or a key's share) passes `criticalAt`.
 */
export function detectorSeverity(ratio: number | null, criticalAt: number): AlertSeverity {
  return ratio === null || ratio >= criticalAt ? 'critical' : 'warning';
}

export const THRESHOLD_RULES: readonly (ThresholdMetric & AlertRule)[] = ['depth', 'imbalance', 'retryRate', 'dlqRate', 'p99LatencyMs'];

/** Whether a rule reads one of the task's warning/critical lines (the detectors do not). */
export function isThresholdRule(rule: AlertRule): rule is ThresholdMetric & AlertRule {
  return (THRESHOLD_RULES as readonly AlertRule[]).includes(rule);
}

/** The dedup key: one open episode per (task, rule, subject). */
export function alertKey(task: string, rule: AlertRule, subject = ''): string {
  return `${task}|${rule}|${subject}`;
}

export const SEVERITY_RANK: Record<AlertSeverity, number> = { warning: 1, critical: 2 };

/** Severities in the order alert lists show them: critical first. */
export const ALERT_SEVERITIES_LISTED: readonly AlertSeverity[] = ['critical', 'warning'];
export const SEVERITY_LIST_RANK: Record<AlertSeverity, number> = { critical: 0, warning: 1 };

/**
 * The order of every alert list (Alerts page, Overview, a task's page): critical before
 * warning, then the newest fired first, then the higher id. The list query sorts the same
 * way in SQL (server/presenters/alerts.ts).
 */
export function compareAlertsForList(
  a: { severity: AlertSeverity; firedAt: Date | number; id: number },
  b: { severity: AlertSeverity; firedAt: Date | number; id: number },
): number {
  return SEVERITY_LIST_RANK[a.severity] - SEVERITY_LIST_RANK[b.severity] || Number(b.firedAt) - Number(a.firedAt) || b.id - a.id;
}

/** Severity only goes up within an episode: a critical alert easing to warning stays critical. */
export function escalate(current: AlertSeverity | undefined, observed: AlertSeverity): AlertSeverity {
  if (!current) return observed;
  return SEVERITY_RANK[observed] > SEVERITY_RANK[current] ? observed : current;
}

/** Whether a notification for `severity` passes a target's minimum severity. */
export function severityAtLeast(severity: AlertSeverity, min: AlertSeverity): boolean {
  return SEVERITY_RANK[severity] >= SEVERITY_RANK[min];
}

export const ALERT_RULE_LABEL: Record<AlertRule, string> = {
  depth: 'Partition depth',
  imbalance: 'Imbalance ratio',
  retryRate: 'Retry rate',
  dlqRate: 'DLQ rate',
  p99LatencyMs: 'p99 latency',
  hotPartition: 'Hot partition',
  hotKey: 'Hot key',
  shedPerSecond: 'Shed executions',
  rejectRate: 'Reject rate',
  waitP99Ms: 'p99 wait',
  coordinatorStale: 'Coordinator stale',
  unownedPartitions: 'Partitions without a live owner',
  configBehind: 'Config not applied',
  maintenanceFailing: 'Maintenance service failing',
  reconcileRepairs: 'Reconciler repairing drift',
  dlqNearFull: 'DLQ near maxDepth',
  dbConnections: 'Postgres connections',
  vacuumHorizon: 'Vacuum horizon held',
  deadTuples: 'Execution dead tuples',
  circuitOpen: 'Circuit breaker open',
  keyWait: 'Key wait',
  streamBlocked: 'Stream blocked',
  spillBacklog: 'Spilled backlog',
};

/** The remedy beside a circuit-breaker alert. */
export const CIRCUIT_OPEN_REMEDY =
  'The task\'s handler kept failing, so coordinators stopped claiming it: its queued executions wait without using attempts. Check the target the handler calls and the errors of the latest attempts; the breaker lets probes through after its cool-down and closes when they succeed, or an operator can reset it on the task page once the target is back.';

/** The remedy shown beside a threshold alert (hot partitions use hotPartitionRemedy). */
export function thresholdRemedy(rule: ThresholdMetric): string {
  switch (rule) {
    case 'depth':
      return 'The backlog is growing faster than it drains: raise the task concurrency, add coordinators, or add partitions so more owners claim in parallel.';
    case 'imbalance':
      return 'One partition holds far more than the mean: switch routing to least-loaded, or hash on a finer-grained key path.';
    case 'retryRate':
      return 'Many attempts fail and retry: check the errors in the dead-letter queue and the downstream the handler calls; a longer backoff eases a struggling dependency.';
    case 'dlqRate':
      return 'Executions are exhausting their retries: inspect the dead letters by error fingerprint, fix the cause, then replay them.';
    case 'p99LatencyMs':
      return 'Executions wait or run long: raise concurrency or per-key limits if the backlog waits, or look at slow handlers if run time dominates.';
  }
}

export function hotKeyRemedy(group: string, key: string): string {
  return `Key "${key}" dominates group "${group}": give it a per-key override in the task's group limits (lower to protect the others, higher if it is legitimately large), or spread it over a finer key.`;
}

export function backpressureRemedy(rule: 'shedPerSecond' | 'rejectRate'): string {
  return rule === 'shedPerSecond'
    ? 'Partitions are past maxDepth and the shed policy is dropping executions: raise concurrency or add coordinators so the backlog drains, raise backpressure.maxDepth, or switch the policy to spill if this work must not be lost.'
    : 'Enqueue calls are refused with 429 because partitions are past maxDepth: drain faster (concurrency, coordinators, partitions), raise backpressure.maxDepth, or have producers honour Retry-After.';
}
