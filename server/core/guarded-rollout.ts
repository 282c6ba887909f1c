// Guarded rollout (issue 20): a config version applied "with guard" bakes for a while;
// during the bake the changed tasks' alerts are watched, and if the guard's rule fires
// the tasks go back to the version before by themselves. This is the state machine and
// the rule matching, pure: the watcher (server/services/guarded-rollout.ts) feeds it the
// alert events it read and the time, and stores what it returns.
//
//   baking ──tick: rule fired during the bake──► rolled_back (system)
//     │  ──tick: bake time passed, nothing fired──► promoted (system)
//     │  ──tick: a guarded task was edited again since──► superseded (system; no rollback:
//     │          the later edit is someone's decision and a revert would wipe it)
//     │  ──promote (operator)──► promoted
//     └──abort (operator)──► aborted (rolled back now)
//
// Evidence is judged by the alert event's own time: an event at or before the bake's end
// counts even if the watcher's tick comes a little later.
import { z } from 'zod';

export const GUARD_STATUSES = ['baking', 'promoted', 'rolled_back', 'aborted', 'superseded'] as const;
export type GuardStatus = (typeof GUARD_STATUSES)[number];

export const DEFAULT_BAKE_MS = 10 * 60_000;
export const MIN_BAKE_MS = 30_000;
export const MAX_BAKE_MS = 24 * 3_600_000;
/** Bake times the console offers; any value within bounds is accepted. */
export const BAKE_CHOICES_MS = [2 * 60_000, 5 * 60_000, 10 * 60_000, 30 * 60_000, 60 * 60_000] as const;

/** Which alerts roll the change back: at least this severity, of one rule or of any. */
export interface GuardRule {
  severity: 'warning' | 'critical';
  /** An alert rule name (depth, p99LatencyMs, …); null = any rule of the guarded tasks. */
  rule: string | null;
}

export const DEFAULT_GUARD_RULE: GuardRule = { severity: 'critical', rule: null };

/**
 * The rules a guard can name: those whose alerts belong to one task (alert-evaluation.ts
 * ALERT_RULES without the fleet-wide ones, which carry no task and so never match a guard).
 * The console offers these; the CLI and API take any rule name.
 */
export const GUARD_TASK_RULES = [
  'depth', 'imbalance', 'retryRate', 'dlqRate', 'p99LatencyMs', 'waitP99Ms', 'keyWait', 'hotPartition', 'hotKey',
  'shedPerSecond', 'rejectRate', 'circuitOpen', 'dlqNearFull', 'reconcileRepairs', 'unownedPartitions',
] as const;

export const guardRuleSchema = z.strictObject({
  severity: z.enum(['warning', 'critical'], { error: 'must be warning or critical' }).default('critical'),
  rule: z
    .string()
    .trim()
    .regex(/^[A-Za-z][A-Za-z0-9]{0,63}$/, 'must be an alert rule name such as depth or p99LatencyMs')
    .nullable()
    .default(null),
});

export const bakeMsSchema = z
  .number({ error: 'must be a number of milliseconds' })
  .int('must be a whole number of ms')
  .min(MIN_BAKE_MS, 'must be at least 30 seconds')
  .max(MAX_BAKE_MS, 'must be at most 24 hours');

/** What "apply with guard" carries. */
export const guardOptionsSchema = z.strictObject({
  bakeMs: bakeMsSchema.default(DEFAULT_BAKE_MS),
  rule: guardRuleSchema.default(DEFAULT_GUARD_RULE),
});
export type GuardOptions = z.output<typeof guardOptionsSchema>;

/** One alert event (fired or escalated) the watcher found for a guarded task. */
export interface GuardAlertEvent {
  alertId: number;
  task: string;
  rule: string;
  subject: string;
  severity: 'warning' | 'critical';
  type: 'fired' | 'escalated';
  /** ms epoch of the event. */
  at: number;
  value: number | null;
  threshold: number | null;
  summary: string;
}

/**
 * An alert a change sets off by itself, which the default rule (any rule: rule null) does
 * not count for that task during the bake. A named rule always counts.
 */
export interface GuardExemption {
  task: string;
  rule: string;
  why: string;
}

/**
 * The fleet alert a change that moves partitions raises by its own doing: a task whose
 * partition count changes has partitions without a live owner until every coordinator has
 * applied the version and rebalanced (`unownedPartitions`, a warning — critical when none
 * is owned — with no for-duration, so the default rule would roll back every such change
 * under a slow rebalance). The evaluator's unowned alert stays as it is; only the guard of
 * that change does not count it, unless the operator named it as the rule.
 */
export const PARTITION_MOVE_RULE = 'unownedPartitions';

export function guardExemptions(
  before: { tasks: readonly { name: string; partitions: number }[] },
  after: { tasks: readonly { name: string; partitions: number }[] },
  tasks: readonly string[],
): GuardExemption[] {
  const out: GuardExemption[] = [];
  for (const task of tasks) {
    const b = before.tasks.find((t) => t.name === task);
    const a = after.tasks.find((t) => t.name === task);
    if (b && a && b.partitions !== a.partitions) out.push({ task, rule: PARTITION_MOVE_RULE, why: `the change moves partitions (${b.partitions} → ${a.partitions})` });
  }
  return out;
}

export interface GuardState {
  status: GuardStatus;
  tasks: string[];
  rule: GuardRule;
  /** Alerts the change sets off by itself, not counted by the default rule (guardExemptions). */
  exempt?: readonly GuardExemption[];
  /** ms epoch. */
  startedAt: number;
  bakeUntil: number;
}

export type GuardInput =
  | { type: 'tick'; now: number; alerts: GuardAlertEvent[]; editedSince: string[] }
  | { type: 'promote'; now: number }
  | { type: 'abort'; now: number };

export type GuardDecision =
  | { status: 'baking'; action: 'none' }
  | { status: 'promoted'; action: 'none'; reason: string }
  | { status: 'superseded'; action: 'none'; reason: string }
  | { status: 'rolled_back' | 'aborted'; action: 'rollback'; reason: string; evidence: GuardAlertEvent | null };

const SEVERITY_RANK = { warning: 1, critical: 2 } as const;

export function matchesGuardRule(rule: GuardRule, tasks: readonly string[], a: GuardAlertEvent, exempt: readonly GuardExemption[] = []): boolean {
  if (!tasks.includes(a.task) || SEVERITY_RANK[a.severity] < SEVERITY_RANK[rule.severity]) return false;
  if (rule.rule !== null) return rule.rule === a.rule;
  return !exempt.some((e) => e.task === a.task && e.rule === a.rule);
}

export function describeGuardRule(rule: GuardRule): string {
  return rule.rule === null ? `any ${rule.severity === 'critical' ? 'critical' : 'warning or critical'} alert` : `${rule.rule} at ${rule.severity === 'critical' ? 'critical' : 'warning or above'}`;
}

/** The first alert event that trips the guard: matching its rule, inside the bake. */
export function trippingEvent(s: GuardState, alerts: readonly GuardAlertEvent[]): GuardAlertEvent | null {
  const hits = alerts.filter((a) => a.at >= s.startedAt && a.at <= s.bakeUntil && matchesGuardRule(s.rule, s.tasks, a, s.exempt));
  hits.sort((a, b) => a.at - b.at || a.alertId - b.alertId);
  return hits[0] ?? null;
}

export function stepGuard(s: GuardState, input: GuardInput): GuardDecision {
  if (s.status !== 'baking') throw new Error(`guard is ${s.status}, not baking`);
  switch (input.type) {
    case 'promote':
      return { status: 'promoted', action: 'none', reason: 'promoted early by an operator' };
    case 'abort':
      return { status: 'aborted', action: 'rollback', reason: 'aborted by an operator', evidence: null };
    case 'tick': {
      const hit = trippingEvent(s, input.alerts);
      if (hit) {
        const value = hit.value === null ? '' : ` (value ${hit.value}${hit.threshold === null ? '' : `, threshold ${hit.threshold}`})`;
        const subject = hit.subject ? ` (${hit.subject})` : '';
        return { status: 'rolled_back', action: 'rollback', reason: `${hit.severity} alert ${hit.rule}${subject} ${hit.type} on ${hit.task}${value}`, evidence: hit };
      }
      if (input.editedSince.length > 0) {
        return { status: 'superseded', action: 'none', reason: `${input.editedSince.join(', ')} edited again during the bake; the guard stands down` };
      }
      if (input.now >= s.bakeUntil) return { status: 'promoted', action: 'none', reason: `bake of ${formatBake(s.bakeUntil - s.startedAt)} passed without ${describeGuardRule(s.rule)}` };
      return { status: 'baking', action: 'none' };
    }
  }
}

/** Remaining bake time in ms (0 once it passed). */
export const bakeRemainingMs = (s: Pick<GuardState, 'bakeUntil'>, now: number) => Math.max(0, s.bakeUntil - now);

/** "10m", "90s", "1h30m" → ms; null when it is not a duration. */
export function parseBakeDuration(text: string): number | null {
  const t = text.trim().toLowerCase();
  if (!/^(\d+h)?(\d+m)?(\d+s)?$/.test(t) || t === '') {
    return null;
  }
  const m = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(t)!;
  return (Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0)) * 1000;
}

/** ms → "10m", "1h30m", "45s". */
export function formatBake(ms: number): string {
  const s = Math.round(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  return `${h ? `${h}h` : ''}${m ? `${m}m` : ''}${sec || s === 0 ? `${sec}s` : ''}`;
}

/** The CLI's --guard value checked: a duration within the bake bounds, or why not. */
export function bakeDurationProblem(text: string): { ms: number } | { problem: string } {
  const ms = parseBakeDuration(text);
  if (ms === null) return { problem: `--guard takes a duration such as 10m, 90s or 1h30m, got "${text}"` };
  if (ms < MIN_BAKE_MS) return { problem: `--guard must be at least 30s, got "${text}"` };
  if (ms > MAX_BAKE_MS) return { problem: `--guard must be at most 24h, got "${text}"` };
  return { ms };
}
