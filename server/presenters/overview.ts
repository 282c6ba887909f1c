// The Overview page in one call: the fleet strip, one card per task with its worst
// status against its thresholds, and the charts of the selected task (default: the task
// in the worst state). Cards read live counters (partition_stats) and the last five
// minutes of 10 s roll-ups; charts read roll-ups. Nothing here scans executions.
import { z } from 'zod';
import type { Db } from '../db/pool';
import { evaluateTaskHealth, type TaskHealth, type ThresholdStatus } from '../core/thresholds';
import { flooredImbalance, perSecond, rate } from '../core/metrics';
import { DEFAULT_ALERT_POLICY } from '../core/alert-evaluation';
import { thresholdsOf } from '../core/stored-definition';
import { readActiveTasks } from '../db/read-active-tasks';
import { readPartitionLive } from '../db/read-partition-live';
import { readTaskWindowTotals } from '../db/read-window-totals';
import { readOpenAlertCounts } from '../db/read-open-alert-counts';
import { readFleetSummary } from '../db/read-fleet-summary';
import { readReplicaLag, type ReplicaLag } from '../db/read-replica-lag';
import type { FleetSummaryRow } from '../db/read-fleet-summary';
import { buildTaskCharts, readFittedChartRows, RECENT_WINDOW_MS, taskNameInput, timeRangeSchema, type TaskCharts } from './task-metrics';

export const overviewInput = z.strictObject({
  range: timeRangeSchema.default('1h'),
  /** The task whose charts to show; omitted = the task in the worst state. */
  task: taskNameInput.optional(),
});
export type OverviewInput = z.input<typeof overviewInput>;

export interface TaskCard {
  task: string;
  /**
   * The card's status: the worse of its metrics against thresholds now and its firing
   * alerts, so a card never reads "Healthy" beside "2 alerts" (an alert outlives the
   * breach until it resolves, or fires only after alertAfterMs).
   */
  worst: ThresholdStatus;
  /** What the worst status comes from: the metrics now, firing alerts, or both. */
  worstFrom: 'metrics' | 'alerts' | 'both' | null;
  health: TaskHealth;
  partitions: number;
  depth: number;
  inFlight: number;
  concurrency: number;
  paused: boolean;
  /** Finished executions per second over the recent window. */
  throughput: number | null;
  openAlerts: { critical: number; warning: number; acknowledged: number };
  /** The task's circuit breaker when it is enabled and not closed (issue 23): no claims while open, probes only while half-open. */
  breaker: { state: 'open' | 'half-open'; sinceMs: number; reason: string } | null;
}

export interface Overview {
  fleet: {
    coordinatorsLive: number;
    coordinatorsRegistered: number;
    coordinatorsDraining: number;
    tasks: number;
    tasksByStatus: Record<ThresholdStatus, number>;
    /** Firing alerts: the tasks' (summed from the cards) plus the fleet's own (task ''). */
    alertsFiring: { critical: number; warning: number };
    /** Of alertsFiring, the fleet-wide ones (coordinators, Postgres, maintenance): on no card. */
    fleetAlertsFiring: { critical: number; warning: number };
    alertsAcknowledged: number;
    /** Tasks whose circuit breaker is open or half-open. */
    breakersOpen: number;
    /** now − the 10 s roll-up cursor; null before the first roll-up. */
    rollupLagMs: number | null;
    /** The read replica's lag behind the primary (DATABASE_REPLICA_URL); null without one. */
    replica: ReplicaLag | null;
  };
  cards: TaskCard[];
  selectedTask: string | null;
  charts: TaskCharts | null;
  generatedAt: number;
}

/** A card's breaker: only when the task has it enabled (a row left behind by a disabled breaker holds nothing). */
function breakerOf(definition: unknown, row: FleetSummaryRow['breakers'][number] | undefined): TaskCard['breaker'] {
  const enabled = (definition as { circuitBreaker?: { enabled?: boolean } } | null)?.circuitBreaker?.enabled === true;
  if (!enabled || !row) return null;
  return { state: row.state, sinceMs: Number(row.sinceMs), reason: row.reason };
}

const STATUS_ORDER: Record<ThresholdStatus, number> = { critical: 0, warning: 1, ok: 2, unknown: 3 };

/** `readDb`: where cards and charts read from — the read replica when one is configured
 *  (server/db/pool.ts getReadPool). Coordinator liveness and open alerts always come from
 *  `db`, the primary: on a lagging replica every heartbeat would look stale. */
export async function getOverview(db: Db, input: z.output<typeof overviewInput>, now = new Date(), readDb: Db = db): Promise<Overview> {
  // One round of parallel reads; the charts of an explicitly chosen task start at once
  // too (only the default "worst task" has to wait for the cards).
  const [tasks, fleet, alertCounts, totals, live, chosenRows, replica] = await Promise.all([
    readActiveTasks(readDb),
    readFleetSummary(db),
    readOpenAlertCounts(db),
    readTaskWindowTotals(readDb, new Date(now.getTime() - RECENT_WINDOW_MS)),
    readPartitionLive(readDb, null),
    input.task ? readFittedChartRows(readDb, input.task, input.range, now) : null,
    readDb === db ? null : readReplicaLag(db, readDb),
  ]);
  // Breakers not closed come with the fleet summary (primary, like the alerts).
  const breakerByTask = new Map(fleet.breakers.map((b) => [b.task, b]));
  const depthsByTask = new Map<string, number[]>();
  for (const p of live) {
    const d = depthsByTask.get(p.task) ?? [];
    d.push(p.depth);
    depthsByTask.set(p.task, d);
  }
  const totalsByTask = new Map(totals.map((t) => [t.task, t]));

  const cards: TaskCard[] = tasks.map((t) => {
    const depths = depthsByTask.get(t.task) ?? [];
    const w = totalsByTask.get(t.task);
    const health = evaluateTaskHealth(thresholdsOf(t.definition), {
      maxDepth: depths.length ? Math.max(...depths) : null,
      // the alert's floor: no imbalance verdict while the total depth is tiny
      imbalance: depths.length ? flooredImbalance(depths, DEFAULT_ALERT_POLICY.imbalanceMinTotalDepth) : null,
      retryRate: w ? rate(w.retried, w.processed + w.failed) : null,
      dlqRate: w ? rate(w.dead_lettered, w.processed + w.dead_lettered) : null,
      p99LatencyMs: w?.latency_p99_ms ?? null,
    });
    const counts = alertCounts.filter((a) => a.task === t.task);
    const sum = (f: (a: (typeof counts)[number]) => boolean) => counts.filter(f).reduce((n, a) => n + a.n, 0);
    const firingCritical = sum((a) => a.status === 'firing' && a.severity === 'critical');
    const firingWarning = sum((a) => a.status === 'firing' && a.severity === 'warning');
    const fromAlerts: ThresholdStatus | null = firingCritical ? 'critical' : firingWarning ? 'warning' : null;
    const worst = fromAlerts && STATUS_ORDER[fromAlerts] < STATUS_ORDER[health.worst] ? fromAlerts : health.worst;
    const metricsBad = health.worst === 'critical' || health.worst === 'warning';
    return {
      task: t.task,
      worst,
      worstFrom: !metricsBad && !fromAlerts ? null : metricsBad && fromAlerts === worst && health.worst === worst ? 'both' : health.worst === worst && metricsBad ? 'metrics' : 'alerts',
      health,
      partitions: t.partitions,
      depth: depths.reduce((a, b) => a + b, 0),
      inFlight: t.in_flight,
      concurrency: t.concurrency,
      paused: t.paused,
      throughput: w ? perSecond(w.processed + w.dead_lettered, Math.min(Math.max(w.covered_ms, 1000), RECENT_WINDOW_MS)) : null,
      openAlerts: {
        critical: firingCritical,
        warning: firingWarning,
        acknowledged: sum((a) => a.status === 'acknowledged'),
      },
      breaker: breakerOf(t.definition, breakerByTask.get(t.task)),
    };
  });
  cards.sort((a, b) => STATUS_ORDER[a.worst] - STATUS_ORDER[b.worst] || (a.task < b.task ? -1 : 1));

  const selected = input.task && tasks.some((t) => t.task === input.task) ? input.task : (cards[0]?.task ?? null);
  const selectedRow = tasks.find((t) => t.task === selected);
  const rows = selectedRow ? (selected === input.task && chosenRows ? chosenRows : await readFittedChartRows(readDb, selectedRow.task, input.range, now)) : null;
  const charts = selectedRow && rows ? buildTaskCharts(selectedRow, rows, now) : null;

  const fleetFiring = (severity: 'critical' | 'warning') =>
    alertCounts.filter((a) => a.task === '' && a.status === 'firing' && a.severity === severity).reduce((n, a) => n + a.n, 0);
  const tasksByStatus: Record<ThresholdStatus, number> = { ok: 0, warning: 0, critical: 0, unknown: 0 };
  for (const c of cards) tasksByStatus[c.worst]++;
  return {
    fleet: {
      coordinatorsLive: fleet.coordinators_live,
      coordinatorsRegistered: fleet.coordinators_registered,
      coordinatorsDraining: fleet.coordinators_draining,
      tasks: tasks.length,
      tasksByStatus,
      // The cards' sum (alerts of active tasks) plus the fleet's own alerts, which belong
      // to no card: the strip says how many of them are fleet-wide.
      alertsFiring: {
        critical: cards.reduce((n, c) => n + c.openAlerts.critical, 0) + fleetFiring('critical'),
        warning: cards.reduce((n, c) => n + c.openAlerts.warning, 0) + fleetFiring('warning'),
      },
      fleetAlertsFiring: { critical: fleetFiring('critical'), warning: fleetFiring('warning') },
      alertsAcknowledged: cards.reduce((n, c) => n + c.openAlerts.acknowledged, 0),
      breakersOpen: cards.filter((c) => c.breaker !== null).length,
      rollupLagMs: fleet.rolled_until ? Math.max(0, fleet.db_now.getTime() - fleet.rolled_until.getTime()) : null,
      replica,
    },
    cards,
    selectedTask: selected,
    charts,
    generatedAt: now.getTime(),
  };
}
