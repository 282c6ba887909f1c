// Alert observation: one task's readings (live partition depths, the evaluator's sample
// window, group-key loads) turned into one verdict per (rule, subject), given the latest
// episode of each key (an open alert sees its line lowered by hysteresis; an episode in
// progress needs an observation even when clear, so its clear-duration can run). The
// evaluator (server/services/alerts.ts) reads the inputs and steps each verdict through
// stepAlert; everything here is pure and table-tested (alert-observation.test.ts).
// Pure: no I/O imports (server/core rule).
import { detectHotKeys, detectHotPartitions, hotPartitionRemedy, type AlertRuleTiming, type AlertStatus, type HotPartition, type KeyLoad } from './alert-rules';
import {
  ALERT_RULE_LABEL,
  alertKey,
  alertTiming,
  detectorSeverity,
  hotKeyRemedy,
  relaxedHotKey,
  relaxedHotPartition,
  THRESHOLD_RULES,
  thresholdBreach,
  thresholdRemedy,
  backpressureRemedy,
  CIRCUIT_OPEN_REMEDY,
  type AlertPolicy,
  type AlertRule,
  type AlertSeverity,
} from './alert-evaluation';
import { flooredImbalance, rate } from './metrics';
import { keyPoliciesOf, routingOf, thresholdsOf } from './stored-definition';
import { keyAlertPolicy, keyWaitLines, taskAlertPolicy } from './fleet-defaults';

/** What an alert episode is about and how it opens (the columns alert-store writes). */
export interface AlertSubject {
  key: string;
  task: string;
  rule: AlertRule;
  subject: string;
  partition: number | null;
  groupName: string | null;
  groupKey: string | null;
  severity: AlertSeverity;
  threshold: number | null;
  remedy: string | null;
}

/** One rule's verdict for one subject: the alert it would open, plus the reading. */
export interface Observation extends AlertSubject {
  breaching: boolean;
  value: number | null;
  evidence: Record<string, unknown>;
  /** How long it must breach before firing (the task's alertAfterMs, else the policy's) and clear before resolving. */
  timing: AlertRuleTiming;
}

/** What observation needs of a key's latest episode. */
export interface EpisodeView {
  status: AlertStatus;
}

/** The evaluator's window totals for a task (partition −1 of metric_samples). */
export interface WindowTotals {
  arrivals: number;
  processed: number;
  failed: number;
  retried: number;
  dead_lettered: number;
  shed: number;
  rejected: number;
  spills: number;
  throttled: number;
  /** enqueue → finish */
  latency_p99_ms: number | null;
  /** ready (run_at) → claimed; claimed → finished. null in windows sampled before they were kept. */
  wait_p99_ms: number | null;
  run_p99_ms: number | null;
}

export interface GroupKeyLoad {
  group_name: string;
  group_key: string;
  in_flight: number;
  queued: number;
  group_total: number;
  group_active: number;
}

export interface TaskInputs {
  task: string;
  definition: unknown;
  depths: number[];
  arrivals: number[];
  totals: WindowTotals | undefined;
  keyLoads: GroupKeyLoad[];
  /** The task's circuit breaker when it is enabled and not closed (issue 23); absent/null: closed or off. */
  breaker?: { state: 'open' | 'half-open'; since: string; reason: string; tripsTotal: number } | null;
  /**
   * Group keys judged by keyWait, with how long their oldest due, queued execution has
   * waited (null: none waits): every key with its own wait lines, and, when the task has
   * key-wait lines for the rest (thresholds.keyWaitMs or the fleet's), the worst keys
   * without their own (at most KEY_WAIT_INHERITED_MAX, the evaluator's read). Lines are
   * resolved here, key by key (core/fleet-defaults.ts keyWaitLines).
   */
  keyWaits?: { group: string; key: string; waitMs: number | null }[];
  /** Executions parked in the overflow table per partition (spill policy); absent = none. */
  spilled?: number[];
  /** The task's longest-blocked stream (a task with a stream key path; null: none blocked or no streams). */
  blockedStream?: BlockedStreamView | null;
}

/**
 * Keys without their own wait lines that the evaluator judges per task through the task's
 * (or the fleet's) key-wait lines: the ones whose oldest due execution waits longest. This
 * bounds keyWait alerts from inherited lines to this many per task however many keys wait;
 * a key pushed out of the worst counts as clear. Keys with their own lines are all judged.
 */
export const KEY_WAIT_INHERITED_MAX = 20;

/** A stream whose head holds work behind it: how long the first execution behind it has waited. */
export interface BlockedStreamView {
  streamKey: string;
  headId: number;
  headState: 'queued' | 'running';
  attempts: number;
  lastError: string | null;
  behind: number;
  blockedMs: number;
}

const STREAM_BLOCKED_REMEDY = (s: BlockedStreamView) =>
  s.headState === 'running'
    ? `Stream "${s.streamKey}" waits on its head, execution ${s.headId}, still running: check the handler (a hung call holds it until the timeout); cancel the head to let the stream go on.`
    : `Stream "${s.streamKey}" waits on its head, execution ${s.headId}, queued after ${s.attempts} attempt(s)${s.lastError ? ` (last error: ${s.lastError.slice(0, 120)})` : ''}: fix the cause, or cancel the head (its retries hold the stream in order by design) so the work behind it runs.`;

const SPILL_BACKLOG_REMEDY =
  'Executions parked in the overflow table by the spill policy wait until their partition falls below maxDepth: drain faster (concurrency, coordinators, partitions), or check "Maintenance service failing" for the spill drainer.';

const KEY_WAIT_REMEDY = (group: string, key: string) =>
  `Work of "${group}=${key}" waits past the key's wait lines: raise the key's override limit in the task's group "${group}" if the key is at its limit, or raise the task concurrency / add coordinators if the whole task is behind.`;

const WAIT_REMEDY =
  'Ready executions wait long to be claimed: raise the task concurrency or per-key limits, add coordinators, or check the Coordinators page for partitions without a live owner.';

/** Keys considered per group when computing hot-key shares (the rest are summed). */
export const KEYS_PER_GROUP = 20;
const OTHERS = '\u0000others';

/** Keys per group an alert's evidence keeps (the top of the live key loads). */
export const EVIDENCE_KEYS_PER_GROUP = 10;

/** One key of an evidence snapshot: its group, its load then, and the group's whole load then. */
export interface EvidenceKey {
  group: string;
  key: string;
  inFlight: number;
  queued: number;
  groupLoad: number;
}

/**
 * The task's heaviest group keys as an alert's evidence snapshot: the top
 * EVIDENCE_KEYS_PER_GROUP of each group, heaviest first (keyLoads come ranked per group).
 */
export function evidenceTopKeys(keyLoads: readonly GroupKeyLoad[]): EvidenceKey[] {
  const taken = new Map<string, number>();
  const out: EvidenceKey[] = [];
  for (const k of keyLoads) {
    const n = taken.get(k.group_name) ?? 0;
    if (n >= EVIDENCE_KEYS_PER_GROUP) continue;
    taken.set(k.group_name, n + 1);
    out.push({ group: k.group_name, key: k.group_key, inFlight: k.in_flight, queued: k.queued, groupLoad: k.group_total });
  }
  return out;
}

/**
 * The evidence an open episode keeps when a new breaching observation replaces it: the new
 * reading, except that a snapshot of top keys is never replaced by an empty one (the keys
 * drained before the partition did), so the episode keeps the keys it fired with.
 */
export function carryTopKeys(prev: Record<string, unknown> | null | undefined, next: Record<string, unknown>): Record<string, unknown> {
  const had = prev && Array.isArray(prev.topKeys) && prev.topKeys.length > 0;
  const has = Array.isArray(next.topKeys) && next.topKeys.length > 0;
  return had && !has && 'topKeys' in next ? { ...next, topKeys: prev.topKeys } : next;
}

export const isOpenEpisode = (r: EpisodeView | undefined) => r !== undefined && (r.status === 'firing' || r.status === 'acknowledged');
/** An episode still in progress (pending too): it needs an observation even when clear. */
export const inProgressEpisode = (r: EpisodeView | undefined) => r !== undefined && r.status !== 'resolved';

/** One line per alert, used by notifications, the audit log and the Alerts pages alike. */
export function alertSummary(a: { task: string; rule: string; subject: string; partition: number | null; groupName: string | null; groupKey: string | null }): string {
  const label = ALERT_RULE_LABEL[a.rule as AlertRule] ?? a.rule;
  const who = a.task === '' ? 'fleet' : a.task;
  if (a.rule === 'hotPartition') return `${label} — ${who} partition ${a.partition}`;
  if (a.rule === 'hotKey' || a.rule === 'keyWait') return `${label} — ${who} ${a.groupName}=${a.groupKey}`;
  if (a.rule === 'depth' && a.partition !== null) return `${label} — ${who} (partition ${a.partition})`;
  if (a.subject !== '') return `${label} — ${who}: ${a.subject}`;
  return `${label} — ${who}`;
}

/** The per-second rates of the backpressure outcomes over the evaluation window; null without a window. */
export function backpressureRates(w: WindowTotals | undefined, windowMs: number) {
  if (!w) return null;
  const per = (n: number) => (n * 1000) / windowMs;
  return { rejected: per(w.rejected), throttled: per(w.throttled), shed: per(w.shed), spilled: per(w.spills) };
}

/** Pure: one task's observations, given the latest episode of each key (for hysteresis). */
export function observeTask(t: TaskInputs, latest: ReadonlyMap<string, EpisodeView>, fleetPolicy: AlertPolicy): Observation[] {
  const thresholds = thresholdsOf(t.definition);
  // Precedence: the task's own for / clear durations, hysteresis and wait lines over the fleet's.
  const policy = taskAlertPolicy(fleetPolicy, thresholds);
  const timing = alertTiming(policy, thresholds);
  const out: Observation[] = [];
  const base = (rule: AlertRule, subject = '') => ({
    timing,
    key: alertKey(t.task, rule, subject),
    task: t.task,
    rule,
    subject,
    partition: null as number | null,
    groupName: null as string | null,
    groupKey: null as string | null,
  });

  // Threshold rules.
  const deepest = t.depths.length ? t.depths.indexOf(Math.max(...t.depths)) : -1;
  const totalDepth = t.depths.reduce((a, b) => a + b, 0);
  const w = t.totals;
  const values: Record<(typeof THRESHOLD_RULES)[number], number | null> = {
    depth: deepest >= 0 ? t.depths[deepest]! : null,
    // Below the floor a ratio means nothing (8× of a total depth of 1) and flaps.
    imbalance: t.depths.length ? flooredImbalance(t.depths, policy.imbalanceMinTotalDepth) : null,
    retryRate: w ? rate(w.retried, w.processed + w.failed) : null,
    dlqRate: w ? rate(w.dead_lettered, w.processed + w.dead_lettered) : null,
    // The design's processing-latency lines judge run time (a delayed execution or a
    // retry backoff is not slow processing); enqueue → finish only where run is unknown.
    p99LatencyMs: w ? (w.run_p99_ms ?? w.latency_p99_ms) : null,
  };
  for (const rule of THRESHOLD_RULES) {
    const b = base(rule);
    const open = isOpenEpisode(latest.get(b.key));
    const verdict = thresholdBreach(values[rule], thresholds[rule], open, policy.hysteresis);
    if (!verdict.breaching && !inProgressEpisode(latest.get(b.key))) continue;
    out.push({
      ...b,
      partition: rule === 'depth' && deepest >= 0 ? deepest : null,
      breaching: verdict.breaching,
      value: values[rule],
      severity: verdict.severity,
      threshold: thresholds[rule].warning,
      evidence: {
        warning: thresholds[rule].warning,
        critical: thresholds[rule].critical,
        value: values[rule],
        ...(rule === 'depth' || rule === 'imbalance' ? { depths: t.depths, deepestPartition: deepest } : {}),
        ...(rule === 'imbalance' ? { totalDepth, minTotalDepth: policy.imbalanceMinTotalDepth } : {}),
        ...(w && rule !== 'depth' && rule !== 'imbalance'
          ? { window: { processed: w.processed, failed: w.failed, retried: w.retried, deadLettered: w.dead_lettered, windowMs: policy.windowMs } }
          : {}),
        ...(w && rule === 'p99LatencyMs' ? { measured: w.run_p99_ms !== null ? 'run' : 'enqueue → finish', waitP99Ms: w.wait_p99_ms, endToEndP99Ms: w.latency_p99_ms } : {}),
      },
      remedy: thresholdRemedy(rule),
    });
  }

  // Backpressure outcomes: any shed is dropped work; rejections past a rate.
  const rates = backpressureRates(w, policy.windowMs);
  const offered = w ? w.arrivals + w.rejected : 0;
  const bpValues = { shedPerSecond: rates?.shed ?? null, rejectRate: w ? rate(w.rejected, offered) : null } as const;
  for (const rule of ['shedPerSecond', 'rejectRate'] as const) {
    const b = base(rule);
    const lines = policy.backpressure[rule];
    const verdict = thresholdBreach(bpValues[rule], lines, isOpenEpisode(latest.get(b.key)), policy.hysteresis);
    if (!verdict.breaching && !inProgressEpisode(latest.get(b.key))) continue;
    const def = t.definition as { backpressure?: { policy?: string; maxDepth?: number } } | null;
    out.push({
      ...b,
      breaching: verdict.breaching,
      value: bpValues[rule],
      severity: verdict.severity,
      threshold: lines.warning,
      evidence: {
        warning: lines.warning,
        critical: lines.critical,
        value: bpValues[rule],
        perSecond: rates,
        window: { arrivals: w?.arrivals ?? 0, rejected: w?.rejected ?? 0, shed: w?.shed ?? 0, spilled: w?.spills ?? 0, throttled: w?.throttled ?? 0, windowMs: policy.windowMs },
        policy: def?.backpressure?.policy ?? null,
        maxDepth: def?.backpressure?.maxDepth ?? null,
        depths: t.depths,
      },
      remedy: backpressureRemedy(rule),
    });
  }

  // Circuit breaker (issue 23): fires on the first evaluation that sees it open or
  // half-open (an open breaker is already the verdict of its own window), resolves on the
  // first that sees it closed again.
  {
    const b = base('circuitOpen');
    const br = t.breaker ?? null;
    if (br || inProgressEpisode(latest.get(b.key))) {
      out.push({
        ...b,
        timing: { forMs: 0, clearForMs: 0 },
        breaching: br !== null,
        value: br ? 1 : 0,
        severity: 'critical',
        threshold: null,
        evidence: br ? { state: br.state, since: br.since, reason: br.reason, tripsTotal: br.tripsTotal } : { state: 'closed' },
        remedy: CIRCUIT_OPEN_REMEDY,
      });
    }
  }

  // Wait time (ready → claimed): its own lines, since the backlog, not the handler, is slow.
  {
    const b = base('waitP99Ms');
    const value = w?.wait_p99_ms ?? null;
    const verdict = thresholdBreach(value, policy.waitP99Ms, isOpenEpisode(latest.get(b.key)), policy.hysteresis);
    if (verdict.breaching || inProgressEpisode(latest.get(b.key))) {
      out.push({
        ...b,
        breaching: verdict.breaching,
        value,
        severity: verdict.severity,
        threshold: policy.waitP99Ms.warning,
        evidence: { warning: policy.waitP99Ms.warning, critical: policy.waitP99Ms.critical, value, runP99Ms: w?.run_p99_ms ?? null, depths: t.depths, windowMs: policy.windowMs },
        remedy: WAIT_REMEDY,
      });
    }
  }

  // Per-key wait (the key level): the key's oldest due execution against its lines (its own,
  // else the task's key-wait lines, else the fleet's), under the key's alert policy.
  const keyPolicies = keyPoliciesOf(t.definition);
  for (const kw of t.keyWaits ?? []) {
    const own = keyPolicies.get(`${kw.group}=${kw.key}`);
    const lines = keyWaitLines(policy, own);
    if (!lines) continue;
    const kp = keyAlertPolicy(policy, own);
    const b = { ...base('keyWait', `${kw.group}=${kw.key}`), groupName: kw.group, groupKey: kw.key, timing: { forMs: kp.forMs, clearForMs: kp.clearForMs } };
    const verdict = thresholdBreach(kw.waitMs, lines.lines, isOpenEpisode(latest.get(b.key)), kp.hysteresis);
    if (!verdict.breaching && !inProgressEpisode(latest.get(b.key))) continue;
    out.push({
      ...b,
      breaching: verdict.breaching,
      value: kw.waitMs,
      severity: verdict.severity,
      threshold: lines.lines.warning,
      evidence: {
        group: kw.group,
        key: kw.key,
        warning: lines.lines.warning,
        critical: lines.lines.critical,
        value: kw.waitMs,
        measured: 'oldest due execution of the key',
        // 'key': the key's own lines; 'task': the task's key-wait lines (or the fleet's).
        source: lines.source,
        forMs: kp.forMs,
        clearForMs: kp.clearForMs,
        hysteresis: kp.hysteresis,
      },
      remedy: KEY_WAIT_REMEDY(kw.group, kw.key),
    });
  }

  // Spilled backlog: work the spill policy parked in the overflow table is not lost, but not
  // queued either; a backlog that stays there means the drain never catches up.
  {
    const b = base('spillBacklog');
    const spilled = t.spilled ?? [];
    const total = spilled.reduce((a, n) => a + n, 0);
    const lines = policy.spillBacklog;
    const verdict = thresholdBreach(spilled.length ? total : null, lines, isOpenEpisode(latest.get(b.key)), policy.hysteresis);
    if (verdict.breaching || inProgressEpisode(latest.get(b.key))) {
      const def = t.definition as { backpressure?: { policy?: string; maxDepth?: number } } | null;
      out.push({
        ...b,
        breaching: verdict.breaching,
        value: total,
        severity: verdict.severity,
        threshold: lines.warning,
        evidence: { warning: lines.warning, critical: lines.critical, value: total, spilled, depths: t.depths, policy: def?.backpressure?.policy ?? null, maxDepth: def?.backpressure?.maxDepth ?? null },
        remedy: SPILL_BACKLOG_REMEDY,
      });
    }
  }

  // A blocked stream (seed 002: "is an earlier message blocking this message?"): the task's
  // longest-blocked stream against the policy's lines; one alert per task, naming the stream.
  {
    const b = base('streamBlocked');
    const s = t.blockedStream ?? null;
    const lines = policy.streamBlockedMs;
    const verdict = thresholdBreach(s?.blockedMs ?? null, lines, isOpenEpisode(latest.get(b.key)), policy.hysteresis);
    if (verdict.breaching || inProgressEpisode(latest.get(b.key))) {
      out.push({
        ...b,
        breaching: verdict.breaching,
        value: s?.blockedMs ?? null,
        severity: verdict.severity,
        threshold: lines.warning,
        evidence: {
          warning: lines.warning,
          critical: lines.critical,
          value: s?.blockedMs ?? null,
          ...(s ? { streamKey: s.streamKey, headId: s.headId, headState: s.headState, attempts: s.attempts, lastError: s.lastError, behind: s.behind } : {}),
        },
        remedy: s ? STREAM_BLOCKED_REMEDY(s) : null,
      });
    }
  }

  // Hot partitions: strict detection for new episodes, relaxed for open ones.
  if (t.depths.length >= 2) {
    const arrivals = t.arrivals.length === t.depths.length ? t.arrivals : [];
    const strict = detectHotPartitions({ depths: t.depths, arrivals, ...policy.hotPartition });
    const relaxed = detectHotPartitions({ depths: t.depths, arrivals, ...relaxedHotPartition(policy.hotPartition, policy.hysteresis) });
    const routing = routingOf(t.definition);
    for (let p = 0; p < t.depths.length; p++) {
      const b = { ...base('hotPartition', String(p)), partition: p };
      const open = isOpenEpisode(latest.get(b.key));
      const hit: HotPartition | undefined = (open ? relaxed : strict).find((h) => h.partition === p);
      if (!hit && !inProgressEpisode(latest.get(b.key))) continue;
      const ratio = hit ? Math.max(hit.depthRatio ?? Infinity, hit.arrivalRatio ?? 0) : null;
      out.push({
        ...b,
        breaching: hit !== undefined,
        value: hit ? (Number.isFinite(ratio!) ? ratio : null) : null,
        severity: hit ? detectorSeverity(hit.depthRatio === null ? null : ratio, policy.hotPartition.factor * 3) : 'warning',
        threshold: policy.hotPartition.factor,
        evidence: {
          depths: t.depths,
          arrivals,
          partition: p,
          ...(hit
            ? {
                reasons: hit.reasons,
                depth: hit.depth,
                siblingMedianDepth: hit.siblingMedianDepth,
                depthRatio: hit.depthRatio,
                arrivalsInWindow: hit.arrivals,
                siblingMedianArrivals: hit.siblingMedianArrivals,
                arrivalRatio: hit.arrivalRatio,
              }
            : {}),
          // The task's top group keys while it runs hot: still shown once it resolved and
          // the keys drained, whether or not a hot-key alert fired beside it.
          topKeys: evidenceTopKeys(t.keyLoads),
          factor: policy.hotPartition.factor,
          floorDepth: policy.hotPartition.floorDepth,
          windowMs: policy.windowMs,
          routing: routing.strategy,
        },
        remedy: hit ? hotPartitionRemedy(routing.strategy, hit.reasons) : null,
      });
    }
  }

  // Hot keys, per group: the top keys plus the rest summed into one stand-in entry.
  const groups = new Map<string, GroupKeyLoad[]>();
  for (const k of t.keyLoads) groups.set(k.group_name, [...(groups.get(k.group_name) ?? []), k]);
  for (const [group, rows] of groups) {
    const listed = rows.reduce((n, r) => n + r.in_flight + r.queued, 0);
    const rest = Math.max(0, rows[0]!.group_total - listed);
    const loads: KeyLoad[] = rows.map((r) => ({ key: r.group_key, inFlight: r.in_flight, queued: r.queued }));
    if (rest > 0) loads.push({ key: OTHERS, inFlight: 0, queued: rest });
    const strict = detectHotKeys(loads, policy.hotKey).filter((k) => k.key !== OTHERS);
    const relaxed = detectHotKeys(loads, relaxedHotKey(policy.hotKey, policy.hysteresis)).filter((k) => k.key !== OTHERS);
    const prefix = `${t.task}|hotKey|${group}=`;
    const inProgressKeys = [...latest.entries()].filter(([k, r]) => inProgressEpisode(r) && k.startsWith(prefix)).map(([k]) => k.slice(prefix.length));
    const candidates = new Set([...strict.map((k) => k.key), ...inProgressKeys]);
    for (const key of candidates) {
      // The key's own for / clear durations and hysteresis over the task's (keyAlertPolicy).
      const kp = keyAlertPolicy(policy, keyPolicies.get(`${group}=${key}`));
      const b = { ...base('hotKey', `${group}=${key}`), groupName: group, groupKey: key, timing: { forMs: kp.forMs, clearForMs: kp.clearForMs } };
      const open = isOpenEpisode(latest.get(b.key));
      const hit = open && kp.hysteresis !== policy.hysteresis
        ? detectHotKeys(loads, relaxedHotKey(policy.hotKey, kp.hysteresis)).find((k) => k.key === key)
        : (open ? relaxed : strict).find((k) => k.key === key);
      out.push({
        ...b,
        breaching: hit !== undefined,
        value: hit?.share ?? null,
        severity: hit ? detectorSeverity(hit.share, (1 + policy.hotKey.dominantShare) / 2) : 'warning',
        threshold: policy.hotKey.dominantShare,
        evidence: {
          group,
          key,
          groupLoad: rows[0]!.group_total,
          activeKeys: rows[0]!.group_active,
          topKeys: rows.slice(0, 10).map((r) => ({ key: r.group_key, inFlight: r.in_flight, queued: r.queued })),
          dominantShare: policy.hotKey.dominantShare,
          floor: policy.hotKey.floor,
        },
        remedy: hit ? hotKeyRemedy(group, key) : null,
      });
    }
  }
  return out;
}
