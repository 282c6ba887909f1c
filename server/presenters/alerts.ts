// The Alerts page: the list (filters + keyset pagination, newest fired first) and one
// alert's detail — its rule and values, its history, and the evidence: the alert's
// partition charted against its siblings (median and max) from roll-ups, the task's
// current top keys, and the suggested remedies with links into the task editor.
import { executionFilterToSearchParams } from '../core/execution-filter';
import { z } from 'zod';
import { inputText } from '../core/input-text';
import type { Db } from '../db/pool';
import type { PrismaClient } from '../db/prisma';
import { Prisma } from '../db/generated/prisma/client';
import { CoreError } from '../core/errors';
import { ALERT_LIST_STATUSES, ALERT_RULE_LABEL, ALERT_RULES, isThresholdRule, type AlertRule, type AlertSeverity } from '../core/alert-evaluation';
import type { AlertStatus } from '../core/alert-rules';
import { alertSummary } from '../core/alert-observation';
import { median } from '../core/metrics';
import { bucketAxis, resolutionForRange } from '../core/rollup-buckets';
import { readTaskSeries } from '../db/read-task-series';
import { readGroupKeyLoads } from '../db/read-group-key-loads';
import { readActiveTasks } from '../db/read-active-tasks';
import { thresholdsOf } from '../core/stored-definition';
import { addOverrideHref, keysViewHref } from '../core/key-views';
import { toChartPoint, type ChartPoint } from './task-metrics';

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
}

export interface AlertListPage {
  items: AlertListItem[];
  nextCursor: number | null;
  counts: { firing: number; acknowledged: number };
}

type AlertModel = Prisma.AlertGetPayload<object>;

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
  };
}

export async function listAlerts(prisma: PrismaClient, input: z.output<typeof alertListInput>): Promise<AlertListPage> {
  const where: Prisma.AlertWhereInput = { firedAt: { not: null } };
  if (input.status === 'open') where.status = { in: ['firing', 'acknowledged'] };
  else if (input.status !== 'all') where.status = input.status;
  if (input.task) where.task = input.task;
  if (input.rule) where.rule = input.rule;
  if (input.severity) where.severity = input.severity;
  if (input.cursor !== undefined) {
    // Keyset on (fired_at DESC, id DESC), the order of alerts_fired_idx.
    const c = await prisma.alert.findUnique({ where: { id: BigInt(input.cursor) }, select: { firedAt: true } });
    if (!c?.firedAt) throw CoreError.badRequest('the page cursor does not match an alert', [{ path: 'cursor', message: 'is not a valid page cursor' }]);
    where.OR = [{ firedAt: { lt: c.firedAt } }, { firedAt: c.firedAt, id: { lt: BigInt(input.cursor) } }];
  }
  const [rows, counts] = await Promise.all([
    prisma.alert.findMany({ where, orderBy: [{ firedAt: 'desc' }, { id: 'desc' }], take: input.limit + 1 }),
    prisma.alert.groupBy({ by: ['status'], where: { status: { in: ['firing', 'acknowledged'] } }, _count: { _all: true } }),
  ]);
  const items = rows.slice(0, input.limit).map(toItem);
  return {
    items,
    nextCursor: rows.length > input.limit ? items.at(-1)!.id : null,
    counts: {
      firing: counts.find((c) => c.status === 'firing')?._count._all ?? 0,
      acknowledged: counts.find((c) => c.status === 'acknowledged')?._count._all ?? 0,
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
  topKeys: { group: string; key: string; inFlight: number; queued: number; share: number }[];
  remedies: Remedy[];
  taskExists: boolean;
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

export async function getAlert(prisma: PrismaClient, db: Db, input: z.output<typeof alertDetailInput>, now = new Date()): Promise<AlertDetail> {
  const a = await prisma.alert.findUnique({ where: { id: BigInt(input.id) }, include: { events: { orderBy: { id: 'asc' } } } });
  if (!a || !a.firedAt) throw CoreError.notFound(`Alert ${input.id}`);
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
  return {
    ...item,
    evidence: (a.evidence ?? {}) as Record<string, unknown>,
    events: a.events.map((e) => ({
      id: Number(e.id),
      at: e.at,
      type: e.type,
      actor: e.actor,
      value: e.value,
      severity: e.severity,
      silenced: e.silenced,
      detail: e.detail,
    })),
    chart,
    topKeys: keys
      .filter((k) => item.rule !== 'hotKey' || k.group_name === item.groupName)
      .map((k) => ({ group: k.group_name, key: k.group_key, inFlight: k.in_flight, queued: k.queued, share: k.group_total > 0 ? (k.in_flight + k.queued) / k.group_total : 0 })),
    remedies: remediesFor(item.rule, a.task, a.remedy, a.groupName, a.groupKey),
    taskExists: task !== undefined,
  };
}
