// The Alerts page: the list (filters + keyset pagination, critical first, then newest fired) and one
// alert's detail — its rule and values, its history, and the evidence: the alert's
// partition charted against its siblings (median and max) from roll-ups, the task's
// current top keys, and the suggested remedies with links into the task editor.
import { executionFilterToSearchParams } from '../core/execution-filter';
import { z } from 'zod';
import { inputText } from '../core/input-text';
import type { Db } from '../db/pool';
import { CoreError } from '../core/errors';
import {
  ALERT_LIST_STATUSES,
  ALERT_RULE_LABEL,
  ALERT_RULES,
  ALERT_SEVERITIES_LISTED,
  isThresholdRule,
  SEVERITY_LIST_RANK,
  type AlertRule,
  type AlertSeverity,
} from '../core/alert-evaluation';
import type { AlertStatus } from '../core/alert-rules';
import { alertSummary } from '../core/alert-observation';
import { median } from '../core/metrics';
import { bucketAxis, resolutionForRange } from '../core/rollup-buckets';
import { readTaskSeries } from '../db/read-task-series';
import { readGroupKeyLoads } from '../db/read-group-key-loads';
import { readActiveTasks } from '../db/read-active-tasks';
import { thresholdsOf } from '../core/stored-definition';
import { addOverrideHref, keysViewHref, streamsViewHref } from '../core/key-views';
import { toChartPoint, type ChartPoint } from './task-metrics';
import { groupIncidents, spansOverlap } from '../core/alert-incidents';

export const alertListInput = z.strictObject({
  /** open = firing + acknowledged. */
  status: z.enum(ALERT_LIST_STATUSES, { error: `must be one of ${ALERT_LIST_STATUSES.join(', ')}` }).default('open'),
  task: inputText.trim().max(63, 'is too long').optional(),
  rule: z.enum(ALERT_RULES, { error: `must be one of ${ALERT_RULES.join(', ')}` }).optional(),
  severity: z.enum(['warning', 'critical'], { error: 'must be warning or critical' }).optional(),
  cursor: z.number().int().positive('is not a valid page cursor').optional(),
  limit: z.number().int().min(1, 'must be at least 1').max(200, 'must be at most 200').default(50),
});
export type AlertListInput = z.input<typeof alertListInput>;

export interface AlertListItem {
  id: number;
  key: string;
  task: string;
  rule: AlertRule;
  ruleLabel: string;
  subject: string;
  partition: number | null;
  groupName: string | null;
  groupKey: string | null;
  summary: string;
  severity: AlertSeverity;
  status: AlertStatus;
  value: number | null;
  peakValue: number | null;
  threshold: number | null;
  firedAt: Date;
  acknowledgedAt: Date | null;
  acknowledgedBy: string | null;
  resolvedAt: Date | null;
  resolvedBy: string | null;
  silencedUntil: Date | null;
  silencedBy: string | null;
  remedy: string | null;
  /** The incident it belongs to (server/core/alert-incidents.ts): its first alert's id. */
  incidentId: number;
}

export interface AlertListPage {
  items: AlertListItem[];
  nextCursor: number | null;
  counts: { firing: number; acknowledged: number };
}

/** An alerts row as the list and the detail read it (camel-cased columns). */
type AlertModel = Omit<AlertListItem, 'rule' | 'ruleLabel' | 'summary' | 'severity' | 'status' | 'value' | 'firedAt'> & {
  rule: string;
  severity: string;
  status: string;
  firedAt: Date | null;
  lastValue: number | null;
  evidence: unknown;
};

const ALERT_COLUMNS = `id, key, task, rule, subject, partition, group_name AS "groupName", group_key AS "groupKey",
  severity, status, fired_at AS "firedAt", acknowledged_at AS "acknowledgedAt", acknowledged_by AS "acknowledgedBy",
  resolved_at AS "resolvedAt", resolved_by AS "resolvedBy", silenced_until AS "silencedUntil", silenced_by AS "silencedBy",
  last_value AS "lastValue", peak_value AS "peakValue", threshold, evidence, remedy`;

function toItem(a: AlertModel): AlertListItem {
  return {
    id: Number(a.id),
    key: a.key,
    task: a.task,
    rule: a.rule as AlertRule,
    ruleLabel: ALERT_RULE_LABEL[a.rule as AlertRule] ?? a.rule,
    subject: a.subject,
    partition: a.partition,
    groupName: a.groupName,
    groupKey: a.groupKey,
    summary: alertSummary(a),
    severity: a.severity as AlertSeverity,
    status: a.status as AlertStatus,
    value: a.lastValue,
    peakValue: a.peakValue,
    threshold: a.threshold,
    firedAt: a.firedAt!,
    acknowledgedAt: a.acknowledgedAt,
    acknowledgedBy: a.acknowledgedBy,
    resolvedAt: a.resolvedAt,
    resolvedBy: a.resolvedBy,
    silencedUntil: a.silencedUntil,
    silencedBy: a.silencedBy,
    remedy: a.remedy,
    incidentId: Number(a.id),
  };
}

/** Sets each item's incidentId from the overlap of its task's spans among `items`. */
function withIncidents<T extends AlertListItem>(items: T[]): T[] {
  const ids = groupIncidents(items.map((i) => ({ id: i.id, task: i.task, firedAt: i.firedAt.getTime(), resolvedAt: i.resolvedAt?.getTime() ?? null })));
  return items.map((i) => ({ ...i, incidentId: ids.get(i.id) ?? i.id }));
}

/** A severity's place in the list, in SQL: 0 for critical (first), 1 for warning (SEVERITY_LIST_RANK). */
const severityRankSql = (col: string) => `(CASE ${col} ${ALERT_SEVERITIES_LISTED.map((s) => `WHEN '${s}' THEN ${SEVERITY_LIST_RANK[s]}`).join(' ')} END)`;

/** Critical first, then warning; within a severity the newest fired first (compareAlertsForList in SQL). */
const ALERT_LIST_ORDER = `${severityRankSql('severity')}, fired_at DESC, id DESC`;

export async function listAlerts(db: Db, input: z.output<typeof alertListInput>): Promise<AlertListPage> {
  const where = ['fired_at IS NOT NULL'];
  const params: unknown[] = [];
  const cond = (sql: (p: string) => string, value: unknown) => {
    params.push(value);
    where.push(sql(`$${params.length}`));
  };
  if (input.status === 'open') where.push(`status IN ('firing', 'acknowledged')`);
  else if (input.status !== 'all') cond((p) => `status = ${p}`, input.status);
  if (input.task) cond((p) => `task = ${p}`, input.task);
  if (input.rule) cond((p) => `rule = ${p}`, input.rule);
  if (input.severity) cond((p) => `severity = ${p}`, input.severity);
  if (input.cursor !== undefined) {
    // Keyset on the list's order (ALERT_LIST_ORDER): after the cursor's severity, or at the
    // same severity fired before it.
    const c = await db.query('SELECT 1 FROM alerts WHERE id = $1 AND fired_at IS NOT NULL', [input.cursor]);
    if (c.rowCount === 0) throw CoreError.badRequest('the page cursor does not match an alert', [{ path: 'cursor', message: 'is not a valid page cursor' }]);
    cond(
      (p) => `EXISTS (SELECT 1 FROM alerts c WHERE c.id = ${p}
        AND (${severityRankSql('alerts.severity')} > ${severityRankSql('c.severity')}
             OR (alerts.severity = c.severity AND (alerts.fired_at, alerts.id) < (c.fired_at, c.id))))`,
      input.cursor,
    );
  }
  params.push(input.limit + 1);
  const [{ rows }, counts] = await Promise.all([
    // A sort rather than an index walk: alerts holds the episodes of the retention window
    // (resolved ones are pruned), a few rows per incident.
    db.query<AlertModel>(`SELECT ${ALERT_COLUMNS} FROM alerts WHERE ${where.join(' AND ')} ORDER BY ${ALERT_LIST_ORDER} LIMIT $${params.length}`, params),
    db.query<{ status: string; n: number }>(
      `SELECT status, count(*)::int AS n FROM alerts WHERE status IN ('firing', 'acknowledged') GROUP BY status`,
    ),
  ]);
  const items = withIncidents(rows.slice(0, input.limit).map(toItem));
  return {
    items,
    nextCursor: rows.length > input.limit ? items.at(-1)!.id : null,
    counts: {
      firing: counts.rows.find((c) => c.status === 'firing')?.n ?? 0,
      acknowledged: counts.rows.find((c) => c.status === 'acknowledged')?.n ?? 0,
    },
  };
}

// ─── Detail ───────────────────────────────────────────────────────────────────────

export const alertDetailInput = z.strictObject({ id: z.number().int().positive('must be an alert id') });

export interface AlertEventView {
  id: number;
  at: Date;
  type: string;
  actor: string;
  value: number | null;
  severity: string | null;
  silenced: boolean;
  detail: unknown;
  /** ms from the alert firing to this event (the episode's clock: time to acknowledge, to resolve) */
  sinceFiredMs: number;
  /** the operator's comment on an acknowledge or a silence */
  comment: string | null;
}

export interface EvidencePoint {
  t: number;
  /** The alert's partition (hot partition / depth rules). */
  subject: number | null;
  siblingsMedian: number | null;
  siblingsMax: number | null;
  /** The rule's metric for task-level rules. */
  value: number | null;
}

export interface Remedy {
  text: string;
  /** Where to act: the task editor section, or the dead-letter queue. */
  href: string;
  label: string;
}

export interface TopKey {
  group: string;
  key: string;
  inFlight: number;
  queued: number;
  share: number;
}

export interface AlertDetail extends AlertListItem {
  evidence: Record<string, unknown>;
  events: AlertEventView[];
  chart: {
    resolutionS: number;
    from: number;
    to: number;
    metric: 'depth' | 'imbalance' | 'retryRate' | 'dlqRate' | 'p99LatencyMs' | 'arrivalRate';
    thresholds: { warning: number; critical: number } | null;
    points: EvidencePoint[];
  } | null;
  topKeys: TopKey[];
  /**
   * Where topKeys come from: `now` (the task's live key loads), or `episode` (keys stored in
   * a hot-key or hot-partition alert's evidence while it fired — this alert's own, or one of its incident's)
   * once the alert is resolved or the live loads are empty, so the evidence keeps its keys
   * after the episode; `episodeAlertId` names the alert they were stored on.
   */
  topKeysAt: 'now' | 'episode';
  episodeAlertId: number | null;
  remedies: Remedy[];
  taskExists: boolean;
  /** How long the episode has lasted (fired → resolved, or → now while open). */
  durationMs: number;
  /** The other alerts of the same incident: the task's alerts whose span overlaps this one. */
  related: AlertListItem[];
}

const taskHref = (task: string, section?: string) => `/tasks/${encodeURIComponent(task)}${section ? `#${section}` : ''}`;

export function remediesFor(rule: AlertRule, task: string, remedy: string | null, groupName: string | null, groupKey: string | null): Remedy[] {
  const out: Remedy[] = [];
  const main = remedy ?? '';
  switch (rule) {
    case 'hotPartition':
      out.push({ text: main, href: taskHref(task, 'sec-routing'), label: 'Change routing' });
      out.push({ text: 'More partitions spread the keys over more owners and claimers.', href: taskHref(task, 'sec-general'), label: 'Add partitions' });
      break;
    case 'hotKey':
      if (groupName !== null && groupKey !== null) {
        out.push({ text: 'Every key of the group: running of its limit, queued, oldest wait and finished per minute.', href: keysViewHref(task, groupName, groupKey), label: 'Open the keys view' });
        out.push({ text: main, href: addOverrideHref(task, groupName, groupKey), label: `Override ${groupName}=${groupKey}` });
        out.push({
          text: 'See the key\'s queued executions and what holds each one.',
          href: `/executions?${executionFilterToSearchParams({ task, group: `${groupName}=${groupKey}`, state: 'queued' }).toString()}`,
          label: `Queued executions of ${groupName}=${groupKey}`,
        });
      } else {
        out.push({ text: main, href: taskHref(task, 'sec-groups'), label: 'Edit group limits' });
      }
      break;
    case 'imbalance':
      out.push({ text: main, href: taskHref(task, 'sec-routing'), label: 'Change routing' });
      break;
    case 'depth':
    case 'p99LatencyMs':
      out.push({ text: main, href: taskHref(task, 'sec-general'), label: 'Raise concurrency' });
      out.push({ text: 'More partitions let more coordinators claim in parallel.', href: taskHref(task, 'sec-general'), label: 'Add partitions' });
      break;
    case 'retryRate':
      out.push({ text: main, href: taskHref(task, 'sec-retry'), label: 'Tune retries' });
      out.push({ text: 'See which errors the failing attempts hit.', href: `/dead-letters?task=${encodeURIComponent(task)}`, label: 'Open dead letters' });
      break;
    case 'dlqRate':
      out.push({ text: main, href: `/dead-letters?task=${encodeURIComponent(task)}`, label: 'Open dead letters' });
      break;
    case 'shedPerSecond':
    case 'rejectRate':
      out.push({ text: main, href: taskHref(task, 'sec-backpressure'), label: 'Edit backpressure' });
      out.push({ text: 'A faster drain removes the overflow at its source.', href: taskHref(task, 'sec-general'), label: 'Raise concurrency' });
      break;
    case 'waitP99Ms':
      out.push({ text: main, href: taskHref(task, 'sec-general'), label: 'Raise concurrency' });
      out.push({ text: 'Partition owners and whether each is live.', href: `/tasks/${encodeURIComponent(task)}/metrics`, label: 'Open the task metrics' });
      break;
    case 'coordinatorStale':
    case 'configBehind':
      out.push({ text: main, href: '/coordinators', label: 'Open the coordinators' });
      break;
    case 'unownedPartitions':
    case 'reconcileRepairs':
      out.push({ text: main, href: `/tasks/${encodeURIComponent(task)}/metrics`, label: 'Open the task metrics' });
      if (rule === 'unownedPartitions') out.push({ text: 'Which coordinators are live and what they serve.', href: '/coordinators', label: 'Open the coordinators' });
      break;
    case 'dlqNearFull':
      out.push({ text: main, href: `/dead-letters?task=${encodeURIComponent(task)}`, label: 'Open dead letters' });
      break;
    case 'maintenanceFailing':
    case 'dbConnections':
    case 'vacuumHorizon':
    case 'deadTuples':
      out.push({ text: main, href: '/coordinators', label: 'Open the coordinators' });
      break;
    case 'keyWait':
      if (groupName !== null && groupKey !== null) {
        out.push({ text: main, href: keysViewHref(task, groupName, groupKey), label: 'Open the keys view' });
        out.push({ text: 'A higher limit for this key lets more of its work run at once.', href: addOverrideHref(task, groupName, groupKey), label: `Override ${groupName}=${groupKey}` });
        out.push({ text: "The key's wait lines, timeout and alert policy.", href: taskHref(task, 'sec-groups'), label: 'Edit key policies' });
      }
      break;
    case 'spillBacklog':
      out.push({ text: main, href: taskHref(task, 'sec-backpressure'), label: 'Edit backpressure' });
      out.push({ text: 'Depth, spilled and drained per partition.', href: `/tasks/${encodeURIComponent(task)}/metrics`, label: 'Open the task metrics' });
      break;
    case 'streamBlocked':
      out.push({ text: main, href: streamsViewHref(task), label: 'Open the streams view' });
      break;
    case 'circuitOpen':
      out.push({ text: main, href: `/tasks/${encodeURIComponent(task)}`, label: 'Open the task (breaker and reset)' });
      out.push({ text: 'The errors of the attempts that tripped it.', href: `/dead-letters?task=${encodeURIComponent(task)}`, label: 'Open dead letters' });
      break;
  }
  if (isThresholdRule(rule)) {
    out.push({ text: 'If this level is normal for the task, move its warning and critical lines.', href: taskHref(task, 'sec-thresholds'), label: 'Edit thresholds' });
  }
  return out;
}

/** The chart window around an alert: 30 min before it fired to 10 min after it resolved (or now). */
export function evidenceWindow(firedAt: number, resolvedAt: number | null, now: number): { fromMs: number; toMs: number } {
  const toMs = Math.min(now, resolvedAt === null ? now : resolvedAt + 10 * 60_000);
  return { fromMs: Math.min(firedAt - 30 * 60_000, toMs - 60 * 60_000), toMs };
}

/** The chart an alert's evidence shows; rules without one (fleet rules, backpressure) show their evidence only. */
const METRIC_OF: Partial<Record<AlertRule, NonNullable<AlertDetail['chart']>['metric']>> = {
  depth: 'depth',
  hotPartition: 'depth',
  hotKey: 'depth',
  imbalance: 'imbalance',
  retryRate: 'retryRate',
  dlqRate: 'dlqRate',
  p99LatencyMs: 'p99LatencyMs',
};

export async function getAlert(db: Db, input: z.output<typeof alertDetailInput>, now = new Date()): Promise<AlertDetail> {
  const a = (await db.query<AlertModel>(`SELECT ${ALERT_COLUMNS} FROM alerts WHERE id = $1`, [input.id])).rows[0];
  if (!a || !a.firedAt) throw CoreError.notFound(`Alert ${input.id}`);
  const events = (
    await db.query<Omit<AlertEventView, 'sinceFiredMs' | 'comment'>>(
      'SELECT id, at, type, actor, value, severity, silenced, detail FROM alert_events WHERE alert_id = $1 ORDER BY id',
      [input.id],
    )
  ).rows;
  const item = toItem(a);
  const task = (await readActiveTasks(db)).find((t) => t.task === a.task);

  let chart: AlertDetail['chart'] = null;
  const metric = METRIC_OF[item.rule];
  if (task && metric) {
    const { fromMs, toMs } = evidenceWindow(a.firedAt.getTime(), a.resolvedAt?.getTime() ?? null, now.getTime());
    const resolutionS = resolutionForRange(toMs - fromMs);
    const axis = bucketAxis(toMs, toMs - fromMs, resolutionS);
    const rows = await readTaskSeries(db, a.task, resolutionS, new Date(axis[0]!), new Date(toMs));
    const byBucket = new Map(rows.map((r) => [r.bucket.getTime(), r]));
    const subject = item.partition;
    const thresholds = thresholdsOf(task.definition);
    const points: EvidencePoint[] = axis.map((t) => {
      const p: ChartPoint = toChartPoint(t, byBucket.get(t), task.partitions, resolutionS);
      const siblings = p.depth.filter((d, i): d is number => d !== null && i !== subject);
      return {
        t,
        subject: subject !== null ? (p.depth[subject] ?? null) : null,
        siblingsMedian: median(siblings),
        siblingsMax: siblings.length ? Math.max(...siblings) : null,
        value: metric === 'depth' ? (subject !== null ? (p.depth[subject] ?? null) : p.depthTotal) : (p[metric] as number | null),
      };
    });
    chart = {
      resolutionS,
      from: axis[0]!,
      to: toMs,
      metric,
      // A hot partition is charted as depth, so it gets the depth lines.
      thresholds: isThresholdRule(item.rule) ? thresholds[item.rule] : item.rule === 'hotPartition' ? thresholds.depth : null,
      points,
    };
  }
  const keys = task ? await readGroupKeyLoads(db, [a.task], 10) : [];
  const live: TopKey[] = keys
    .filter((k) => item.rule !== 'hotKey' || k.group_name === item.groupName)
    .map((k) => ({ group: k.group_name, key: k.group_key, inFlight: k.in_flight, queued: k.queued, share: k.group_total > 0 ? (k.in_flight + k.queued) / k.group_total : 0 }));
  const related = await relatedAlerts(db, item, now);
  // Once resolved (or with no live load), the keys stored while it fired: its own snapshot
  // (hot partition, hot key), else one of its incident's hot-key or hot-partition alerts'.
  const stored =
    live.length === 0 || item.status === 'resolved'
      ? storedTopKeys([{ ...item, evidence: a.evidence }, ...related.filter((r) => r.rule === 'hotKey'), ...related.filter((r) => r.rule === 'hotPartition')])
      : null;
  return {
    ...item,
    evidence: (a.evidence ?? {}) as Record<string, unknown>,
    events: events.map((e) => ({
      id: Number(e.id),
      at: e.at,
      type: e.type,
      actor: e.actor,
      value: e.value,
      severity: e.severity,
      silenced: e.silenced,
      detail: e.detail,
      sinceFiredMs: e.at.getTime() - a.firedAt!.getTime(),
      comment: commentOf(e.detail),
    })),
    chart,
    topKeys: stored?.keys ?? live,
    topKeysAt: stored ? 'episode' : 'now',
    episodeAlertId: stored?.alertId ?? null,
    remedies: remediesFor(item.rule, a.task, a.remedy, a.groupName, a.groupKey),
    taskExists: task !== undefined,
    durationMs: (a.resolvedAt ?? now).getTime() - a.firedAt.getTime(),
    related: related.map(({ evidence: _, ...r }) => r),
  };
}

/**
 * The first of `alerts` whose evidence holds top keys: a hot-key alert stores its group's
 * keys (the group and its load on the evidence), a hot partition the task's keys of every
 * group (each entry with its group and that group's load).
 */
function storedTopKeys(alerts: { id: number; evidence: unknown }[]): { alertId: number; keys: TopKey[] } | null {
  for (const x of alerts) {
    const e = (x.evidence ?? {}) as { group?: unknown; groupLoad?: unknown; topKeys?: unknown };
    if (!Array.isArray(e.topKeys) || e.topKeys.length === 0) continue;
    const keys: TopKey[] = [];
    for (const k of e.topKeys as { group?: unknown; key?: unknown; inFlight?: unknown; queued?: unknown; groupLoad?: unknown }[]) {
      const group = typeof k.group === 'string' ? k.group : typeof e.group === 'string' ? e.group : null;
      if (group === null || typeof k.key !== 'string' || typeof k.inFlight !== 'number' || typeof k.queued !== 'number') continue;
      const loadOf = typeof k.groupLoad === 'number' ? k.groupLoad : e.groupLoad;
      const load = typeof loadOf === 'number' && loadOf > 0 ? loadOf : null;
      keys.push({ group, key: k.key, inFlight: k.inFlight, queued: k.queued, share: load ? (k.inFlight + k.queued) / load : 0 });
    }
    if (keys.length > 0) return { alertId: x.id, keys };
  }
  return null;
}

function commentOf(detail: unknown): string | null {
  const c = detail !== null && typeof detail === 'object' ? (detail as { comment?: unknown }).comment : undefined;
  return typeof c === 'string' && c !== '' ? c : null;
}

/**
 * The task's other alerts whose firing span overlaps this one's (alerts_fired_idx reads the
 * task's alerts fired before this one ended; at most 20, nearest first).
 */
async function relatedAlerts(db: Db, a: AlertListItem, now: Date): Promise<(AlertListItem & { evidence: unknown })[]> {
  const end = a.resolvedAt ?? now;
  const { rows } = await db.query<AlertModel>(
    `SELECT ${ALERT_COLUMNS} FROM alerts
      WHERE task = $1 AND id <> $2 AND fired_at IS NOT NULL AND fired_at <= $3
        AND (resolved_at IS NULL OR resolved_at >= $4)
      ORDER BY fired_at DESC, id DESC
      LIMIT 20`,
    [a.task, a.id, end, a.firedAt],
  );
  return rows
    .map((r) => ({ ...toItem(r), evidence: r.evidence as unknown }))
    .filter((r) => spansOverlap({ firedAt: r.firedAt.getTime(), resolvedAt: r.resolvedAt?.getTime() ?? null }, { firedAt: a.firedAt.getTime(), resolvedAt: end.getTime() }))
    .map((r) => ({ ...r, incidentId: a.incidentId }));
}
