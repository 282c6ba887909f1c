// Chart data for one task over a time range (Overview charts, task drill-down), and the
// per-partition drill-down table (live depth, arrival and drain rates, owner, drain-time
// forecast). Charts read roll-ups only (server/db/read-task-series.ts); the table reads
// the live partition counters plus the last few minutes of 10 s roll-ups.
import { stageLinesOf, stageOf, type BackpressureStage, type StageLines } from '../core/backpressure-stages';
import { z } from 'zod';
import { inputText } from '../core/input-text';
import type { Db } from '../db/pool';
import { CoreError } from '../core/errors';
import { hasRateLimit, thresholdsOf } from '../core/stored-definition';
import type { TaskThresholds } from '../core/thresholds';
import { DEFAULT_ALERT_POLICY, type AlertPolicy } from '../core/alert-evaluation';
import { evaluateThreshold, type ThresholdStatus } from '../core/thresholds';
import { drainForecastMs, imbalanceRatio, perSecond, rate } from '../core/metrics';
import { bucketAxis, resolutionForRange, ROLLUP_RESOLUTIONS_S, ROLLUP_RETENTION_MS, TIME_RANGE_MS, TIME_RANGES, type RollupResolution, type TimeRange } from '../core/rollup-buckets';
import { readTaskSeries, type SeriesBucketRow } from '../db/read-task-series';
import { readActiveTasks, type ActiveTaskRow } from '../db/read-active-tasks';
import { readPartitionLive } from '../db/read-partition-live';
import { readPartitionWindowTotals, type WindowTotals } from '../db/read-window-totals';
import { readPartitionHeadKeys } from '../db/read-partition-head-keys';
import { readGroupKeyLoads } from '../db/read-group-key-loads';
import { fitRange } from '../core/chart-scale';
import { readChartMarkers, type ChartMarkerRow } from '../db/read-chart-markers';
import { readFirstRollupBucket } from '../db/read-first-rollup-bucket';
import { readReconcileLog } from '../db/read-reconcile-log';

export const timeRangeSchema = z.enum(TIME_RANGES, { error: `must be one of ${TIME_RANGES.join(', ')}` });
export const taskNameInput = inputText.min(1, 'is required').max(63, 'is too long');

export const taskChartsInput = z.strictObject({ task: taskNameInput, range: timeRangeSchema.default('1h') });
export type TaskChartsInput = z.input<typeof taskChartsInput>;

/** Window for "now" numbers: cards, drill-down rates, drain forecasts. */
export const RECENT_WINDOW_MS = 5 * 60_000;

export interface ChartPoint {
  /** Bucket start, ms epoch. */
  t: number;
  /**
   * Max depth in the bucket per depth series (TaskCharts.depthSeries; for toChartPoint
   * alone: per partition, index = partition); null = no sample.
   */
  depth: (number | null)[];
  depthTotal: number | null;
  imbalance: number | null;
  /** Fractions (0.1 = 10%). */
  retryRate: number | null;
  dlqRate: number | null;
  p99LatencyMs: number | null;
  /** Per second over the bucket. */
  throughput: number | null;
  arrivalRate: number | null;
  /** Backpressure outcomes per second over the bucket, and rejected ÷ offered (arrivals + rejected). */
  shedRate: number | null;
  rejectedRate: number | null;
  throttledRate: number | null;
  spilledRate: number | null;
  rejectRate: number | null;
  /** p99 wait (ready → claimed) and run (claimed → finished), highest sample p99 in the bucket. */
  waitP99Ms: number | null;
  runP99Ms: number | null;
  /** Rate-held executions (issue #19; server/db/read-rate-held.ts), max of the task total's samples in the bucket. */
  rateHeld: number | null;
}

export interface TaskCharts {
  task: string;
  /** The range drawn: the one asked for, or a smaller one holding all of a young task's data (core/chart-scale fitRange). */
  range: TimeRange;
  /** The range asked for. */
  requestedRange: TimeRange;
  resolutionS: RollupResolution;
  from: number;
  to: number;
  partitions: number;
  thresholds: TaskThresholds;
  /** The alert policy's backpressure lines (shed per second: any is critical; reject rate). */
  backpressure: AlertPolicy['backpressure'];
  /** The alert policy's wait-time lines (run time is judged by thresholds.p99LatencyMs). */
  waitP99Ms: AlertPolicy['waitP99Ms'];
  /** The task has a rate limit (its own or a group's): the rate-held chart is drawn for these tasks only. */
  rateLimited: boolean;
  /** What each point's `depth` array holds: one partition per entry, or the deepest few and the max of the rest. */
  depthSeries: DepthSeries[];
  points: ChartPoint[];
  /** Buckets with any data; 0 means "no samples in this range" (the empty state). */
  pointsWithData: number;
  /** Changes to mark on the time axis: config versions, pauses, replays, purges. */
  markers: TaskChartMarker[];
}

export interface TaskChartMarker {
  t: number;
  kind: ChartMarkerRow['kind'];
  label: string;
  by: string;
  href: string;
}

/** A marker row → what the chart draws and where its tooltip links. */
export function toTaskChartMarker(task: string, m: ChartMarkerRow): TaskChartMarker {
  const t = m.at.getTime();
  const by = m.actor;
  switch (m.kind) {
    case 'config':
    case 'pause':
    case 'resume': {
      const v = Number(m.ref);
      const what = m.kind === 'config' ? `changed ${task}` : m.kind === 'pause' ? `paused ${task}` : `resumed ${task}`;
      return { t, kind: m.kind, by, label: `v${v} · ${m.message || what}`, href: `/config/history?before=${v + 1}` };
    }
    case 'guarded': {
      const v = Number(m.ref);
      return { t, kind: m.kind, by, label: `v${v} applied with guard · ${m.message || `changed ${task}`}`, href: `/config/history?before=${v + 1}` };
    }
    case 'promoted':
      return { t, kind: m.kind, by, label: `v${m.ref} promoted · ${m.message}`, href: `/config/history?before=${Number(m.ref) + 1}` };
    case 'rolled-back': {
      const made = m.count;
      return {
        t,
        kind: m.kind,
        by,
        label: `v${m.ref} rolled back${by === 'system' ? ' by guard' : ''}${made !== null ? ` (v${made})` : ''} · ${m.message}`,
        href: `/config/history?before=${(made ?? Number(m.ref)) + 1}`,
      };
    }
    case 'replay':
      return { t, kind: m.kind, by, label: `Replay job ${m.ref}${m.count !== null ? ` · ${m.count} dead letter${m.count === 1 ? '' : 's'} of ${task}` : ''}`, href: `/audit?targetType=dlq_replay_job&targetId=${encodeURIComponent(m.ref)}` };
    case 'purge':
      return { t, kind: m.kind, by, label: `Purge${m.count !== null ? ` · ${m.count} dead letter${m.count === 1 ? '' : 's'} of ${task}` : ''}`, href: `/audit?targetType=dead_letters&targetId=${encodeURIComponent(m.ref)}` };
  }
}

export interface DepthSeries {
  key: string;
  name: string;
  /** The partition drawn; null for "max of the others". */
  partition: number | null;
}

/** Up to this many partitions, one line each; beyond, the TOP_PARTITIONS deepest and the max of the rest. */
export const MAX_PARTITION_LINES = 16;
export const TOP_PARTITIONS = 8;

/**
 * The depth lines a chart draws. A 64-partition task would otherwise ship (and draw)
 * 64 lines × every bucket; the deepest partitions by peak in the range keep their own
 * line and the rest become one "max of the others" line, so what is drawn is what is sent.
 */
export function reduceDepthSeries(points: ChartPoint[], partitions: number): { series: DepthSeries[]; points: ChartPoint[] } {
  const one = (i: number): DepthSeries => ({ key: `p${i}`, name: `partition ${i}`, partition: i });
  if (partitions <= MAX_PARTITION_LINES) return { series: Array.from({ length: partitions }, (_, i) => one(i)), points };
  const peak = new Array<number>(partitions).fill(-1);
  for (const p of points) p.depth.forEach((d, i) => d !== null && d > peak[i]! && (peak[i] = d));
  const top = [...peak.keys()].sort((a, b) => peak[b]! - peak[a]! || a - b).slice(0, TOP_PARTITIONS).sort((a, b) => a - b);
  const topSet = new Set(top);
  return {
    series: [...top.map(one), { key: 'others', name: `max of other ${partitions - top.length}`, partition: null }],
    points: points.map((p) => {
      let others: number | null = null;
      p.depth.forEach((d, i) => {
        if (d !== null && !topSet.has(i) && (others === null || d > others)) others = d;
      });
      return { ...p, depth: [...top.map((i) => p.depth[i] ?? null), others] };
    }),
  };
}

export async function findTask(db: Db, task: string): Promise<ActiveTaskRow> {
  const t = (await readActiveTasks(db)).find((x) => x.task === task);
  if (!t) throw CoreError.notFound(`Task "${task}"`);
  return t;
}

function clampWindowMs(coveredMs: number | null, resolutionS: number): number {
  const ms = Math.min(Math.max(coveredMs ?? resolutionS * 1000, 1000), resolutionS * 1000);
  return ms;
}

/** One roll-up bucket → one chart point (partition depths spread over `partitions` slots). */
export function toChartPoint(t: number, row: SeriesBucketRow | undefined, partitions: number, resolutionS: number): ChartPoint {
  const depth: (number | null)[] = new Array(partitions).fill(null);
  if (!row) {
    return {
      t, depth, depthTotal: null, imbalance: null, retryRate: null, dlqRate: null, p99LatencyMs: null, throughput: null, arrivalRate: null,
      shedRate: null, rejectedRate: null, throttledRate: null, spilledRate: null, rejectRate: null, waitP99Ms: null, runP99Ms: null,
      rateHeld: null,
    };
  }
  const present: number[] = [];
  row.partitions.forEach((p, i) => {
    if (p < partitions) {
      depth[p] = row.depths[i]!;
      present.push(row.depths[i]!);
    }
  });
  const windowMs = clampWindowMs(row.covered_ms, resolutionS);
  const hasTotal = row.processed !== null;
  const processed = row.processed ?? 0;
  const failed = row.failed ?? 0;
  const dead = row.dead_lettered ?? 0;
  return {
    t,
    depth,
    depthTotal: row.total_depth ?? (present.length ? present.reduce((a, b) => a + b, 0) : null),
    imbalance: present.length ? imbalanceRatio(present) : null,
    retryRate: hasTotal ? rate(row.retried ?? 0, processed + failed) : null,
    dlqRate: hasTotal ? rate(dead, processed + dead) : null,
    p99LatencyMs: row.latency_p99_ms,
    throughput: hasTotal ? perSecond(processed + dead, windowMs) : null,
    arrivalRate: row.arrivals === null ? null : perSecond(row.arrivals, windowMs),
    shedRate: row.shed === null ? null : perSecond(row.shed, windowMs),
    rejectedRate: row.rejected === null ? null : perSecond(row.rejected, windowMs),
    throttledRate: row.throttled === null ? null : perSecond(row.throttled, windowMs),
    spilledRate: row.spills === null ? null : perSecond(row.spills, windowMs),
    rejectRate: row.rejected === null ? null : rate(row.rejected, (row.arrivals ?? 0) + row.rejected),
    waitP99Ms: row.wait_p99_ms,
    runP99Ms: row.run_p99_ms,
    rateHeld: row.rate_held,
  };
}

/** The buckets a range reads: resolution and bucket starts up to now. */
export function chartWindow(range: TimeRange, now: Date): { resolutionS: RollupResolution; axis: number[] } {
  const rangeMs = TIME_RANGE_MS[range];
  const resolutionS = resolutionForRange(rangeMs);
  return { resolutionS, axis: bucketAxis(now.getTime(), rangeMs, resolutionS) };
}

export function readChartRows(db: Db, task: string, range: TimeRange, now: Date): Promise<SeriesBucketRow[]> {
  const w = chartWindow(range, now);
  return readTaskSeries(db, task, w.resolutionS, new Date(w.axis[0]!), now);
}

export interface FittedRows {
  range: TimeRange;
  requestedRange: TimeRange;
  rows: SeriesBucketRow[];
  markers: ChartMarkerRow[];
}

/**
 * The rows of the range asked for, or — when the task's data is younger than half of it —
 * of the smallest range that holds it (a second, finer read; only while a task is young).
 */
export async function readFittedChartRows(db: Db, task: string, requested: TimeRange, now: Date): Promise<FittedRows> {
  // The finest roll-up dates the data to 10 s: when the task's first 10 s bucket lies
  // inside that resolution's retention, the data is that young and the range is fitted
  // before any rows are read (one read, as for an established task).
  const finest = ROLLUP_RESOLUTIONS_S[0];
  const kept = now.getTime() - ROLLUP_RETENTION_MS[finest];
  const [first, markers] = await Promise.all([
    readFirstRollupBucket(db, task, finest, new Date(kept)),
    readChartMarkers(db, task, new Date(now.getTime() - TIME_RANGE_MS[requested]), now),
  ]);
  const young = first !== null && first.getTime() > kept + 60_000;
  let fitted = { range: young ? fitRange(requested, now.getTime() - first.getTime()) : requested, rows: [] as SeriesBucketRow[] };
  fitted.rows = await readChartRows(db, task, fitted.range, now);
  // Older than the finest retention: the range's own rows decide; a coarse first bucket
  // overstates the data's age, so fit again on the finer rows until the range holds.
  for (let i = 0; !young && i < 3; i++) {
    const start = fitted.rows[0]?.bucket.getTime();
    const range = fitRange(fitted.range, start === undefined ? null : now.getTime() - start);
    if (range === fitted.range) break;
    fitted = { range, rows: await readChartRows(db, task, range, now) };
  }
  return { range: fitted.range, requestedRange: requested, rows: fitted.rows, markers };
}

/** Chart points over the window's axis from the series rows (missing buckets stay gaps). */
export function buildTaskCharts(task: ActiveTaskRow, fitted: FittedRows, now: Date): TaskCharts {
  const { range, requestedRange, rows, markers } = fitted;
  const { resolutionS, axis } = chartWindow(range, now);
  const byBucket = new Map(rows.map((r) => [r.bucket.getTime(), r]));
  const reduced = reduceDepthSeries(
    axis.map((t) => toChartPoint(t, byBucket.get(t), task.partitions, resolutionS)),
    task.partitions,
  );
  return {
    task: task.task,
    range,
    requestedRange,
    resolutionS,
    from: axis[0]!,
    to: now.getTime(),
    partitions: task.partitions,
    thresholds: thresholdsOf(task.definition),
    backpressure: DEFAULT_ALERT_POLICY.backpressure,
    waitP99Ms: DEFAULT_ALERT_POLICY.waitP99Ms,
    rateLimited: hasRateLimit(task.definition),
    depthSeries: reduced.series,
    points: reduced.points,
    pointsWithData: rows.length,
    markers: markers.map((m) => toTaskChartMarker(task.task, m)),
  };
}

export async function getTaskCharts(db: Db, input: z.output<typeof taskChartsInput>, now = new Date()): Promise<TaskCharts> {
  const [task, fitted] = await Promise.all([findTask(db, input.task), readFittedChartRows(db, input.task, input.range, now)]);
  return buildTaskCharts(task, fitted, now);
}

// ─── Partition drill-down ──────────────────────────────────────────────────────────

export interface PartitionRow {
  partition: number;
  depth: number;
  inFlight: number;
  spilled: number;
  depthStatus: ThresholdStatus;
  /** Per second over the recent window (null = no samples). */
  arrivalRate: number | null;
  drainRate: number | null;
  /** drain − arrivals: positive means the backlog shrinks. */
  netDrainRate: number | null;
  /** Time to empty at the net drain rate; null = not draining. */
  drainForecastMs: number | null;
  /** depth ÷ siblings' mean; 1 = average. */
  shareOfMean: number | null;
  owner: { id: string; name: string; host: string; live: boolean; heartbeatAt: Date | null } | null;
  /** Staged backpressure (issue 23): the stage the partition's depth is in now, and how often the stage enqueue met changed. */
  stage: BackpressureStage;
  stageChanges: number;
}

export interface TaskPartitions {
  task: string;
  windowMs: number;
  /** Staged backpressure: the depths where the throttle and the policy stages begin. */
  stageLines: StageLines;
  thresholds: TaskThresholds;
  imbalance: number;
  partitions: PartitionRow[];
  topKeys: { group: string; key: string; inFlight: number; queued: number; share: number }[];
  /** The reconciler's recent repairs of this task's counters, newest first (each one an engine bug signal). */
  reconcileRepairs: { at: Date; counter: string; partition: number | null; groupName: string | null; groupKey: string | null; recorded: number; actual: number }[];
}

export async function getTaskPartitions(db: Db, taskName: string, now = new Date()): Promise<TaskPartitions> {
  const task = await findTask(db, taskName);
  const thresholds = thresholdsOf(task.definition);
  const [live, totals, keys, repairs] = await Promise.all([
    readPartitionLive(db, [task.task]),
    readPartitionWindowTotals(db, task.task, new Date(now.getTime() - RECENT_WINDOW_MS)),
    readGroupKeyLoads(db, [task.task], 5),
    readReconcileLog(db, task.task, 20),
  ]);
  const byPartition = new Map<number, WindowTotals>(totals.map((t) => [t.partition, t]));
  const depths = live.map((p) => p.depth);
  const mean = depths.length ? depths.reduce((a, b) => a + b, 0) / depths.length : 0;
  const lines = stageLinesOf(task.definition);
  const partitions: PartitionRow[] = live.map((p) => {
    const w = byPartition.get(p.partition);
    // Rates over the time the samples actually cover (a partition that appeared a minute
    // ago is not diluted over five).
    const windowMs = w ? Math.min(Math.max(w.covered_ms, 1000), RECENT_WINDOW_MS) : 0;
    const arrivalRate = w ? perSecond(w.arrivals, windowMs) : null;
    const drainRate = w ? perSecond(w.processed + w.dead_lettered, windowMs) : null;
    const net = arrivalRate === null || drainRate === null ? null : drainRate - arrivalRate;
    return {
      partition: p.partition,
      depth: p.depth,
      inFlight: p.in_flight,
      spilled: p.spilled,
      depthStatus: evaluateThreshold(p.depth, thresholds.depth),
      arrivalRate,
      drainRate,
      netDrainRate: net,
      drainForecastMs: drainForecastMs(p.depth, net),
      shareOfMean: mean > 0 ? p.depth / mean : null,
      stage: stageOf(Number(p.depth), lines),
      stageChanges: Number(p.bp_stage_changes),
      owner: p.owner_id
        ? {
            id: p.owner_id,
            name: p.owner_name ?? p.owner_id,
            host: p.owner_host ?? '',
            live: p.owner_live,
            heartbeatAt: p.owner_heartbeat_at,
          }
        : null,
    };
  });
  return {
    task: task.task,
    windowMs: RECENT_WINDOW_MS,
    stageLines: lines,
    thresholds,
    imbalance: imbalanceRatio(depths),
    partitions,
    topKeys: keys.map((k) => ({
      group: k.group_name,
      key: k.group_key,
      inFlight: k.in_flight,
      queued: k.queued,
      share: k.group_total > 0 ? (k.in_flight + k.queued) / k.group_total : 0,
    })),
    reconcileRepairs: repairs.map((r) => ({ at: r.at, counter: r.counter, partition: r.partition, groupName: r.group_name, groupKey: r.group_key, recorded: r.recorded, actual: r.actual })),
  };
}

export const partitionKeysInput = z.strictObject({
  task: taskNameInput,
  partition: z.number().int('must be a whole number').min(0, 'must be ≥ 0').max(1023, 'must be < 1024'),
});

/** How many of a partition's oldest queued executions the head-key sample reads. */
export const HEAD_SAMPLE = 1000;

export async function getPartitionHeadKeys(db: Db, input: z.output<typeof partitionKeysInput>) {
  const task = await findTask(db, input.task);
  if (input.partition >= task.partitions) throw CoreError.notFound(`Partition ${input.partition} of "${task.task}"`);
  const r = await readPartitionHeadKeys(db, task.task, input.partition, HEAD_SAMPLE);
  return { task: task.task, partition: input.partition, sampleLimit: HEAD_SAMPLE, ...r };
}
