// The alert engine. `evaluateAlerts` (run by the evaluate-alerts control-plane service)
// reads each active task's live counters and recent samples, turns them into
// observations (core observeTask, server/core/alert-observation.ts: thresholds,
// backpressure, hot partitions / keys, hysteresis applied to open alerts), steps each alert's state machine (core stepAlert: for-duration before firing —
// the task's thresholds.alertAfterMs, else the policy's — and clear-duration before
// resolving), and writes episodes, events and webhook
// notifications in one transaction. Operator actions (acknowledge, silence, resolve) run
// the core transition on a locked row and write their audit record in the same
// transaction.
import { z } from 'zod';
import type pg from 'pg';
import { CoreError } from '../core/errors';
import { acknowledgeAlert, resolveAlert, silenceAlert, stepAlert, type AlertEvent, type AlertState } from '../core/alert-rules';
import { alertTiming, checkPolicy, DEFAULT_ALERT_POLICY, escalate, SEVERITY_RANK, type AlertPolicy } from '../core/alert-evaluation';
import { alertSummary, carryTopKeys, KEY_WAIT_INHERITED_MAX, KEYS_PER_GROUP, observeTask, type Observation, type TaskInputs } from '../core/alert-observation';
import { DEFAULT_FLEET_POLICY, observeFleet, type FleetPolicy } from '../core/alert-fleet-rules';
import { readFleetHealth } from '../db/read-fleet-health';
import { latestFleetDefaultsJson } from '../db/config-versions';
import { alertPolicyOf, parseFleetDefaults, taskAlertPolicy } from '../core/fleet-defaults';
import { withTransaction, type Db } from '../db/pool';
import { recordAudit, type Actor } from '../db/audit';
import { readActiveTasks } from '../db/read-active-tasks';
import { readPartitionLive } from '../db/read-partition-live';
import { readSampleWindowTotals } from '../db/read-sample-window-totals';
import { readGroupKeyLoads } from '../db/read-group-key-loads';
import { readBreakers, type BreakerRow } from '../db/task-breakers';
import { readKeyOldestWaits } from '../db/read-key-oldest-waits';
import { keyWaitLinesOf, thresholdsOf } from '../core/stored-definition';
import { readWorstKeyWaits } from '../db/read-worst-key-waits';
import { readBlockedStreams } from '../db/read-blocked-streams';
import {
  deleteAlert,
  insertAlert,
  insertAlertEvent,
  lockAlert,
  lockLatestEpisodes,
  rowToState,
  updateAlert,
  type AlertEventType,
  type AlertRow,
} from '../db/alert-store';
import { enqueueAlertNotification, type AlertNotificationEvent } from './webhooks';
import { parseInput } from '../core/validate-input';
import { inputText } from '../core/input-text';

/** Events the engine records: the core's fired/resolved plus severity escalation. */
type EngineEvent = Omit<AlertEvent, 'type'> & { type: AlertEvent['type'] | 'escalated' };

/** Open or still-silenced keys nobody observed this round (task removed, key gone idle): clear. */
function unobserved(latest: Map<string, AlertRow>, observed: Set<string>, policy: AlertPolicy): Observation[] {
  const out: Observation[] = [];
  for (const [key, r] of latest) {
    if (observed.has(key) || r.status === 'resolved') continue;
    out.push({
      key,
      task: r.task,
      rule: r.rule,
      subject: r.subject,
      partition: r.partition,
      groupName: r.group_name,
      groupKey: r.group_key,
      breaching: false,
      value: null,
      timing: alertTiming(policy, undefined),
      severity: r.severity,
      threshold: r.threshold,
      evidence: r.evidence,
      remedy: r.remedy,
    });
  }
  return out;
}

const summaryOf = (r: Pick<AlertRow, 'task' | 'rule' | 'subject' | 'partition' | 'group_name' | 'group_key'>) =>
  alertSummary({ ...r, groupName: r.group_name, groupKey: r.group_key });

function notification(r: AlertRow) {
  return {
    id: r.id,
    key: r.key,
    task: r.task,
    rule: r.rule,
    subject: r.subject,
    severity: r.severity,
    status: r.status,
    value: r.last_value,
    peakValue: r.peak_value,
    threshold: r.threshold,
    firedAt: r.fired_at,
    resolvedAt: r.resolved_at,
    resolvedBy: r.resolved_by,
    summary: summaryOf(r),
    remedy: r.remedy,
  };
}

async function recordEvents(db: Db, row: AlertRow, events: EngineEvent[], actor: string): Promise<number> {
  let notified = 0;
  for (const e of events) {
    await insertAlertEvent(db, { alertId: row.id, at: new Date(e.at), type: e.type, actor, value: e.value, severity: row.severity, silenced: e.silenced });
    if (!e.silenced) notified += await enqueueAlertNotification(db, `alert.${e.type}` as AlertNotificationEvent, notification(row));
  }
  return notified;
}

export interface EvaluationResult {
  tasks: number;
  observed: number;
  fired: number;
  resolved: number;
  escalated: number;
  open: number;
  notificationsQueued: number;
}

/** Applies one observation to its key's latest episode; returns what happened. */
async function applyObservation(db: Db, obs: Observation, prev: AlertRow | undefined, at: number) {
  const step = stepAlert(prev ? rowToState(prev) : undefined, { breaching: obs.breaching, value: obs.value, at }, obs.timing);
  const events: EngineEvent[] = [...step.events];
  const result = { fired: 0, resolved: 0, escalated: 0, notified: 0 };
  if (!step.state) {
    if (prev && prev.status === 'pending') await deleteAlert(db, prev.id);
    return result;
  }
  const state: AlertState = step.state;
  const opening = (!prev || prev.status === 'resolved') && state.status !== 'resolved';
  const details = obs.breaching ? { evidence: carryTopKeys(prev?.status === 'resolved' ? null : prev?.evidence, obs.evidence), remedy: obs.remedy, threshold: obs.threshold } : {};
  let row: AlertRow;
  if (opening) {
    row = await insertAlert(db, obs, state);
  } else if (prev) {
    const severity = obs.breaching && state.status !== 'resolved' ? escalate(prev.severity, obs.severity) : prev.severity;
    row = await updateAlert(db, prev.id, state, { ...details, severity, ...(state.status === 'resolved' && step.events.length ? { resolvedBy: null } : {}) });
    if ((row.status === 'firing' || row.status === 'acknowledged') && SEVERITY_RANK[severity] > SEVERITY_RANK[prev.severity] && prev.fired_at) {
      events.push({ type: 'escalated', at, value: obs.value, peakValue: state.peakValue, silenced: state.silencedUntil !== undefined && at < state.silencedUntil });
    }
  } else return result;
  for (const e of events) result[e.type === 'fired' ? 'fired' : e.type === 'resolved' ? 'resolved' : 'escalated']++;
  result.notified = await recordEvents(db, row, events, 'system');
  return result;
}

/**
 * The group keys keyWait judges per task, with their oldest due execution's wait (ms):
 * every key with its own wait lines, and, when the task has key-wait lines for the rest
 * (its thresholds.keyWaitMs or the fleet's alertPolicy.keyWaitMs), the
 * KEY_WAIT_INHERITED_MAX keys without their own whose oldest due execution waits longest.
 */
async function readKeyWaits(db: Db, tasks: { task: string; definition: unknown; partitions: number }[], at: number, policy: AlertPolicy) {
  const out = new Map<string, NonNullable<TaskInputs['keyWaits']>>();
  const waitOf = (runAt: Date | undefined) => (runAt === undefined ? null : Math.max(0, at - runAt.getTime()));
  await Promise.all(
    tasks.map(async (t) => {
      const own = keyWaitLinesOf(t.definition).map((k) => `${k.group}=${k.key}`);
      const inherited = taskAlertPolicy(policy, thresholdsOf(t.definition)).keyWaitMs !== null;
      if (own.length === 0 && !inherited) return;
      const [ownRows, worst] = await Promise.all([
        readKeyOldestWaits(db, t.task, t.partitions, own, KEY_WAIT_HEAD_ROWS),
        inherited
          ? readWorstKeyWaits(db, t.task, t.partitions, { exclude: own, headRows: KEY_WAIT_HEAD_ROWS, maxWaitingKeys: KEY_WAIT_SCAN_KEYS, limit: KEY_WAIT_INHERITED_MAX })
          : Promise.resolve([]),
      ]);
      const oldest = new Map(ownRows.map((r) => [r.group_key, r.oldest_run_at]));
      const split = (gk: string) => ({ group: gk.slice(0, gk.indexOf('=')), key: gk.slice(gk.indexOf('=') + 1) });
      out.set(t.task, [
        ...own.map((gk) => ({ ...split(gk), waitMs: waitOf(oldest.get(gk)) })),
        ...worst.map((r) => ({ ...split(r.group_key), waitMs: waitOf(r.oldest_run_at) })),
      ]);
    }),
  );
  return out;
}

/**
 * The longest-blocked stream of each task with a stream key path (the Streams view's first
 * row: STREAM_SCAN heads read, oldest first; 20 behind counted at most).
 */
async function readBlockedStreamHeads(db: Db, tasks: { task: string; definition: unknown }[], at: number) {
  const out = new Map<string, NonNullable<TaskInputs['blockedStream']>>();
  const streamed = tasks.filter((t) => typeof (t.definition as { stream?: { keyPath?: unknown } } | null)?.stream?.keyPath === 'string');
  await Promise.all(
    streamed.map(async (t) => {
      // Behind counted up to 20 (evidence only): 500 heads × 20 index entries at most a round.
      const page = await readBlockedStreams(db, t.task, { afterFirstBehindId: null, limit: 1, scan: STREAM_SCAN, countCap: 20 });
      const r = page.rows[0];
      if (!r) return;
      out.set(t.task, {
        streamKey: r.stream_key,
        headId: r.head_id,
        headState: r.head_state,
        attempts: r.attempts,
        lastError: r.last_error,
        behind: r.behind,
        blockedMs: Math.max(0, at - r.first_behind_enqueued_at.getTime()),
      });
    }),
  );
  return out;
}

/** Stream heads per task the blocked-stream read visits (oldest first). */
const STREAM_SCAN = 500;

/** Distinct waiting keys per task the inherited key-wait read visits (readWorstKeyWaits). */
const KEY_WAIT_SCAN_KEYS = 1000;

/** Due rows per partition the key-wait read samples (as the Keys view does). */
const KEY_WAIT_HEAD_ROWS = 200;

function breakerView(b: BreakerRow | undefined): TaskInputs['breaker'] {
  if (!b || b.state === 'closed') return null;
  return { state: b.state, since: new Date(b.sinceMs).toISOString(), reason: b.reason, tripsTotal: b.tripsTotal };
}

/**
 * The alert policy in effect: the code's constants with the latest config version's
 * fleet `defaults.alertPolicy` on top (stored versions were validated on the way in; one
 * that no longer validates falls back to the code's policy rather than stopping alerts).
 */
export async function currentAlertPolicy(db: Db): Promise<AlertPolicy> {
  const raw = await latestFleetDefaultsJson(db);
  if (raw === null) return DEFAULT_ALERT_POLICY;
  const parsed = parseFleetDefaults(raw);
  return parsed.ok ? alertPolicyOf(parsed.value) : DEFAULT_ALERT_POLICY;
}

/** `policy` absent: the config's (currentAlertPolicy); tests pass their own. */
export async function evaluateAlerts(
  pool: pg.Pool,
  now = new Date(),
  explicitPolicy?: AlertPolicy,
  fleetPolicy: FleetPolicy = DEFAULT_FLEET_POLICY,
): Promise<EvaluationResult> {
  const policy = checkPolicy(explicitPolicy ?? (await currentAlertPolicy(pool)));
  const at = now.getTime();
  const tasks = await readActiveTasks(pool);
  const names = tasks.map((t) => t.task);
  const breakerTasks = tasks.filter((t) => (t.definition as { circuitBreaker?: { enabled?: boolean } } | null)?.circuitBreaker?.enabled === true).map((t) => t.task);
  const [live, windowRows, keyLoads, fleet, breakers, keyWaits, blockedStreams] = await Promise.all([
    readPartitionLive(pool, names),
    readSampleWindowTotals(pool, new Date(at - policy.windowMs)),
    readGroupKeyLoads(pool, names, KEYS_PER_GROUP),
    readFleetHealth(pool, { reconcileWindowMs: fleetPolicy.reconcileWindowMs, dlqWindowMs: policy.windowMs }),
    readBreakers(pool, breakerTasks),
    readKeyWaits(pool, tasks, at, policy),
    readBlockedStreamHeads(pool, tasks, at),
  ]);
  return withTransaction(pool, async (c) => {
    // One evaluation at a time (every control-plane instance runs the evaluator, and tools
    // call it directly): two that both found no open episode for a key would both insert
    // one, and the second would fail on alerts_open_key. Waiting here, the second then locks
    // the episodes the first wrote and updates them.
    await c.query(`SELECT pg_advisory_xact_lock(hashtext('sluice.evaluate_alerts'))`);
    const latestRows = await lockLatestEpisodes(c, now);
    const latest = new Map(latestRows.map((r) => [r.key, r]));
    const observations: Observation[] = [];
    for (const t of tasks) {
      const parts = live.filter((p) => p.task === t.task);
      const arrivalsBy = new Map(windowRows.filter((w) => w.task === t.task && w.partition >= 0).map((w) => [w.partition, w.arrivals]));
      observations.push(
        ...observeTask(
          {
            task: t.task,
            definition: t.definition,
            depths: parts.map((p) => p.depth),
            spilled: parts.map((p) => p.spilled),
            // Arrivals only when every partition has samples in the window (else ratios lie).
            arrivals: parts.every((p) => arrivalsBy.has(p.partition)) ? parts.map((p) => arrivalsBy.get(p.partition)!) : [],
            totals: windowRows.find((w) => w.task === t.task && w.partition === -1),
            keyLoads: keyLoads.filter((k) => k.task === t.task),
            breaker: breakerView(breakers.find((b) => b.task === t.task)),
            keyWaits: keyWaits.get(t.task) ?? [],
            blockedStream: blockedStreams.get(t.task) ?? null,
          },
          latest,
          policy,
        ),
      );
    }
    observations.push(...observeFleet(fleet, latest, policy, fleetPolicy));
    observations.push(...unobserved(latest, new Set(observations.map((o) => o.key)), policy));
    const res: EvaluationResult = { tasks: tasks.length, observed: observations.length, fired: 0, resolved: 0, escalated: 0, open: 0, notificationsQueued: 0 };
    for (const obs of observations) {
      const r = await applyObservation(c, obs, latest.get(obs.key), at);
      res.fired += r.fired;
      res.resolved += r.resolved;
      res.escalated += r.escalated;
      res.notificationsQueued += r.notified;
    }
    const open = await c.query<{ n: number }>(`SELECT count(*)::int AS n FROM alerts WHERE status IN ('firing', 'acknowledged')`);
    res.open = open.rows[0]!.n;
    return res;
  });
}

// ─── Operator actions ─────────────────────────────────────────────────────────────
// Each runs on the locked row, writes an alert event (the episode's history) and an audit
// record in one transaction. Acknowledge and silence take an optional comment ("rolling
// back 1.4", "known: vendor outage"), kept on the event (detail.comment) and in the audit.

export const alertIdInput = z.strictObject({ id: z.number().int('must be an alert id').positive('must be an alert id') });

const comment = inputText.trim().max(500, 'must be at most 500 characters').optional();

export const acknowledgeAlertInput = alertIdInput.extend({ comment });

/** Silence durations offered by the UI; any value within bounds is accepted. */
export const silenceAlertInput = alertIdInput.extend({
  durationMs: z
    .number()
    .int('must be a whole number of ms')
    .min(60_000, 'must be at least one minute')
    .max(30 * 86_400_000, 'must be at most 30 days'),
  comment,
});

function auditView(r: AlertRow) {
  return { status: r.status, severity: r.severity, acknowledgedBy: r.acknowledged_by, silencedUntil: r.silenced_until, resolvedBy: r.resolved_by };
}

/** The comment as stored: absent when empty. */
const withComment = (c: string | undefined) => (c ? { comment: c } : {});

async function withLockedAlert<T>(pool: pg.Pool, id: number, fn: (c: pg.PoolClient, row: AlertRow) => Promise<T>): Promise<T> {
  return withTransaction(pool, async (c) => {
    const row = await lockAlert(c, id);
    if (!row || row.fired_at === null) throw CoreError.notFound(`Alert ${id}`);
    return fn(c, row);
  });
}

/**
 * The record of one operator action on a locked alert: its event in the alert's history
 * (the value and severity at that moment) and its audit entry, in the caller's transaction.
 */
async function recordOperatorAction(
  c: pg.PoolClient,
  actor: Actor,
  row: AlertRow,
  after: AlertRow,
  now: Date,
  a: { type: AlertEventType; action: string; silenced: boolean; detail?: Record<string, unknown>; meta?: Record<string, unknown> },
): Promise<void> {
  await insertAlertEvent(c, {
    alertId: row.id,
    at: now,
    type: a.type,
    actor: actor.label,
    value: row.last_value,
    severity: row.severity,
    silenced: a.silenced,
    ...(a.detail && Object.keys(a.detail).length > 0 ? { detail: a.detail } : {}),
  });
  await recordAudit(c, actor, {
    action: a.action,
    targetType: 'alert',
    targetId: String(row.id),
    before: auditView(row),
    after: auditView(after),
    meta: { summary: summaryOf(row), ...a.meta },
  });
}

export async function acknowledgeAlertById(pool: pg.Pool, actor: Actor, input: z.input<typeof acknowledgeAlertInput>, now = new Date()): Promise<AlertRow> {
  const v = parseInput(acknowledgeAlertInput, input);
  return withLockedAlert(pool, v.id, async (c, row) => {
    if (row.status !== 'firing') {
      throw new CoreError('CONFLICT', `Alert ${row.id} is ${row.status}; only a firing alert can be acknowledged.`);
    }
    const after = await updateAlert(c, row.id, acknowledgeAlert(rowToState(row), now.getTime(), actor.label));
    const note = withComment(v.comment);
    await recordOperatorAction(c, actor, row, after, now, { type: 'acknowledged', action: 'alert.acknowledge', silenced: false, detail: note, meta: note });
    return after;
  });
}

export async function silenceAlertById(pool: pg.Pool, actor: Actor, input: z.input<typeof silenceAlertInput>, now = new Date()): Promise<AlertRow> {
  const v = parseInput(silenceAlertInput, input);
  return withLockedAlert(pool, v.id, async (c, row) => {
    const until = now.getTime() + v.durationMs;
    const after = await updateAlert(c, row.id, silenceAlert(rowToState(row), until), { silencedBy: actor.label });
    const note = withComment(v.comment);
    await recordOperatorAction(c, actor, row, after, now, {
      type: 'silenced',
      action: 'alert.silence',
      silenced: true,
      detail: { until: new Date(until).toISOString(), durationMs: v.durationMs, ...note },
      meta: { durationMs: v.durationMs, ...note },
    });
    return after;
  });
}

/** Ends a silence early: notifications resume at once (the state machine never stopped). */
export async function unsilenceAlertById(pool: pg.Pool, actor: Actor, input: z.input<typeof alertIdInput>, now = new Date()): Promise<AlertRow> {
  const v = parseInput(alertIdInput, input);
  return withLockedAlert(pool, v.id, async (c, row) => {
    if (row.silenced_until === null || row.silenced_until.getTime() <= now.getTime()) {
      throw new CoreError('CONFLICT', `Alert ${row.id} is not silenced.`);
    }
    const { silencedUntil: _, ...state } = rowToState(row);
    const after = await updateAlert(c, row.id, state, { silencedBy: null });
    const remainingMs = row.silenced_until.getTime() - now.getTime();
    await recordOperatorAction(c, actor, row, after, now, {
      type: 'unsilenced',
      action: 'alert.unsilence',
      silenced: false,
      detail: { wasUntil: row.silenced_until.toISOString(), remainingMs },
      meta: { silencedBy: row.silenced_by, remainingMs },
    });
    return after;
  });
}

export async function resolveAlertById(pool: pg.Pool, actor: Actor, input: z.input<typeof alertIdInput>, now = new Date()): Promise<AlertRow> {
  const v = parseInput(alertIdInput, input);
  return withLockedAlert(pool, v.id, async (c, row) => {
    if (row.status === 'resolved') throw new CoreError('CONFLICT', `Alert ${row.id} is already resolved.`);
    const step = resolveAlert(rowToState(row), now.getTime());
    const after = await updateAlert(c, row.id, step.state!, { resolvedBy: actor.label });
    for (const e of step.events) {
      await insertAlertEvent(c, { alertId: row.id, at: now, type: 'resolved', actor: actor.label, value: e.value, severity: row.severity, silenced: e.silenced });
      if (!e.silenced) await enqueueAlertNotification(c, 'alert.resolved', notification(after));
    }
    await recordAudit(c, actor, { action: 'alert.resolve', targetType: 'alert', targetId: String(row.id), before: auditView(row), after: auditView(after), meta: { summary: summaryOf(row) } });
    return after;
  });
}

