// The control plane's Prometheus families (the coordinators expose their own on their
// metrics port — what each process did; these are the cluster-wide numbers the Overview
// shows): depth, in flight and imbalance per task and partition, and executions finished
// per task and outcome (succeeded, dead, canceled), from the exact partition_stats counters, p99 enqueue→finish latency over the Overview's recent window,
// dead letters per task, coordinators by state, alerts open/firing, roll-up lag, webhook
// outbox, service runs. Every family passes `promtool check metrics` (a test runs it).
import type { Db } from '../db/pool';
import { readControlPlaneGauges } from '../db/read-control-plane-gauges';
import { readPartitionLive } from '../db/read-partition-live';
import { readTaskWindowTotals } from '../db/read-window-totals';
import { renderFamilies, type MetricFamily } from '../core/prometheus-text';
import { imbalanceRatio } from '../core/metrics';
import { RECENT_WINDOW_MS } from './task-metrics';
import { readActiveTasks } from '../db/read-active-tasks';
import { readBreakers } from '../db/task-breakers';
import { stageLevel, stageLinesOf, stageOf } from '../core/backpressure-stages';
import { readRateHeld } from '../db/read-rate-held';
import { hasRateLimit } from '../core/stored-definition';

const BACKPRESSURE_OUTCOMES = ['rejected', 'throttled', 'shed', 'spilled'] as const;

export async function controlPlaneMetricsText(db: Db): Promise<string> {
  const [g, partitions, windows, active, rateHeld] = await Promise.all([
    readControlPlaneGauges(db),
    readPartitionLive(db, null),
    readTaskWindowTotals(db, new Date(Date.now() - RECENT_WINDOW_MS)),
    readActiveTasks(db),
    readRateHeld(db),
  ]);
  // Limits (issue #19): the tasks with a rate limit (their own or a group's)
  const rateTasks = active.filter((t) => hasRateLimit(t.definition)).map((t) => t.task);
  // Issue 23: each partition's backpressure stage (from its live depth and the task's
  // stage lines) and the circuit breakers of the tasks that enable one.
  const linesOf = new Map(active.map((t) => [t.task, stageLinesOf(t.definition)]));
  const breakerTasks = active.filter((t) => (t.definition as { circuitBreaker?: { enabled?: boolean } } | null)?.circuitBreaker?.enabled === true).map((t) => t.task);
  const breakers = await readBreakers(db, breakerTasks);
  const BREAKER_LEVEL = { closed: 0, 'half-open': 1, open: 2 } as const;
  const firing = g.alerts.filter((a) => a.status === 'firing');
  type Outcome = (typeof BACKPRESSURE_OUTCOMES)[number];
  const byTask = new Map<string, { depth: number[]; inFlight: number; finished: Record<'succeeded' | 'dead' | 'canceled', number>; backpressure: Record<Outcome, number> }>();
  for (const p of partitions) {
    const t = byTask.get(p.task) ?? {
      depth: [], inFlight: 0, finished: { succeeded: 0, dead: 0, canceled: 0 }, backpressure: { rejected: 0, throttled: 0, shed: 0, spilled: 0 },
    };
    t.backpressure.rejected += Number(p.rejected_total);
    t.backpressure.throttled += Number(p.throttled_total);
    t.backpressure.shed += Number(p.shed_total);
    t.backpressure.spilled += Number(p.spilled_total);
    t.depth.push(Number(p.depth));
    t.inFlight += Number(p.in_flight);
    t.finished.succeeded += Number(p.processed_total);
    t.finished.dead += Number(p.dead_total);
    t.finished.canceled += Number(p.canceled_total);
    byTask.set(p.task, t);
  }
  const tasks = [...byTask.entries()];
  const families: MetricFamily[] = [
    {
      name: 'sluice_task_depth',
      help: 'Executions waiting (queued, not running), per task: the sum of its partitions.',
      type: 'gauge',
      samples: tasks.map(([task, t]) => ({ labels: { task }, value: t.depth.reduce((a, b) => a + b, 0) })),
    },
    {
      name: 'sluice_partition_depth',
      help: 'Executions waiting, per task and partition.',
      type: 'gauge',
      samples: partitions.map((p) => ({ labels: { task: p.task, partition: String(p.partition) }, value: Number(p.depth) })),
    },
    {
      name: 'sluice_partition_backpressure_stage',
      help: 'Staged backpressure: the stage each partition is in by its depth (0 normal, 1 throttle: arrivals delayed and told to retry later, 2 policy: reject/shed/spill).',
      type: 'gauge',
      samples: partitions
        .filter((p) => linesOf.has(p.task))
        .map((p) => ({ labels: { task: p.task, partition: String(p.partition) }, value: stageLevel(stageOf(Number(p.depth), linesOf.get(p.task)!)) })),
    },
    {
      name: 'sluice_partition_backpressure_stage_changes_total',
      help: 'Times the backpressure stage an enqueue met changed, per task and partition.',
      type: 'counter',
      samples: partitions.map((p) => ({ labels: { task: p.task, partition: String(p.partition) }, value: Number(p.bp_stage_changes) })),
    },
    {
      name: 'sluice_task_circuit_breaker_state',
      help: "A task's circuit breaker, for the tasks that enable one: 0 closed, 1 half-open (probes running), 2 open (not claimed).",
      type: 'gauge',
      samples: breakerTasks.map((task) => ({ labels: { task }, value: BREAKER_LEVEL[breakers.find((b) => b.task === task)?.state ?? 'closed'] })),
    },
    {
      name: 'sluice_task_circuit_breaker_trips_total',
      help: "Times a task's circuit breaker opened (tripped by failures or a failed probe).",
      type: 'counter',
      samples: breakerTasks.map((task) => ({ labels: { task }, value: breakers.find((b) => b.task === task)?.tripsTotal ?? 0 })),
    },
    // Limits (issue #19): rate limits
    {
      name: 'sluice_task_rate_held_executions',
      help: "Executions waiting on a rate limit now, per task with one: the queued executions beyond what its rates may still start now (a key rate with less than one unit of allowance left, or with rows parked on it, holds the rest of its rows; the task's own rate, its whole depth), at most the depth. The rate-held chart samples the same number.",
      type: 'gauge',
      samples: rateTasks.map((task) => ({ labels: { task }, value: rateHeld.find((x) => x.task === task)?.rate_held ?? 0 })),
    },
    {
      name: 'sluice_task_rate_held_keys',
      help: 'Group keys whose rate limit holds them now (their next slot is in the future), per task with a rate limit.',
      type: 'gauge',
      samples: rateTasks.map((task) => ({ labels: { task }, value: rateHeld.find((x) => x.task === task)?.held_keys ?? 0 })),
    },
    {
      name: 'sluice_task_in_flight',
      help: 'Executions running (leased by a coordinator), per task.',
      type: 'gauge',
      samples: tasks.map(([task, t]) => ({ labels: { task }, value: t.inFlight })),
    },
    {
      name: 'sluice_task_finished_total',
      help: 'Executions finished since the task was created, per task and outcome (succeeded, dead, canceled by an operator); all coordinators together.',
      type: 'counter',
      samples: tasks.flatMap(([task, t]) => (['succeeded', 'dead', 'canceled'] as const).map((outcome) => ({ labels: { task, outcome }, value: t.finished[outcome] }))),
    },
    {
      name: 'sluice_task_backpressure_total',
      help: 'Executions past maxDepth since the task was created, per task and outcome: rejected (429), throttled (accepted with a delay), shed (dropped), spilled (parked in overflow).',
      type: 'counter',
      samples: tasks.flatMap(([task, t]) => BACKPRESSURE_OUTCOMES.map((outcome) => ({ labels: { task, outcome }, value: t.backpressure[outcome] }))),
    },
    {
      name: 'sluice_task_imbalance_ratio',
      help: "Deepest partition's depth over the mean partition depth, per task (1 = even).",
      type: 'gauge',
      samples: tasks.map(([task, t]) => ({ labels: { task }, value: imbalanceRatio(t.depth) })),
    },
    {
      name: 'sluice_task_latency_p99_seconds',
      help: 'p99 enqueue-to-finish latency over the last 5 minutes of 10 s roll-ups, per task.',
      type: 'gauge',
      samples: windows.filter((w) => w.latency_p99_ms !== null).map((w) => ({ labels: { task: w.task }, value: Number(w.latency_p99_ms) / 1000 })),
    },
    {
      name: 'sluice_dead_letters',
      help: 'Dead letters kept, per task (replayed or not).',
      type: 'gauge',
      samples: g.deadLetters.map((d) => ({ labels: { task: d.task }, value: Number(d.total) })),
    },
    {
      name: 'sluice_dead_letters_pending',
      help: 'Dead letters not yet replayed, per task.',
      type: 'gauge',
      samples: g.deadLetters.map((d) => ({ labels: { task: d.task }, value: Number(d.pending) })),
    },
    {
      name: 'sluice_coordinators',
      help: 'Coordinators not stopped, by state: live (heartbeat within 30 s, not draining), draining, registered (all).',
      type: 'gauge',
      samples: (['live', 'draining', 'registered'] as const).map((state) => ({ labels: { state }, value: Number(g.coordinators[state]) })),
    },
    {
      name: 'sluice_alerts_firing',
      help: 'Alerts firing (not yet acknowledged), by task, rule and severity.',
      type: 'gauge',
      samples: firing.map((a) => ({ labels: { task: a.task, rule: a.rule, severity: a.severity }, value: a.n })),
    },
    {
      name: 'sluice_alerts_open',
      help: 'Open alert episodes by task, rule, severity and status (pending, firing, acknowledged).',
      type: 'gauge',
      samples: g.alerts.map((a) => ({ labels: { task: a.task, rule: a.rule, severity: a.severity, status: a.status }, value: a.n })),
    },
    {
      // Not `_total`: that suffix is for counters (promtool rejects it on a gauge). This one
      // is 0 when nothing fires, when sum(sluice_alerts_firing) has no series at all.
      name: 'sluice_alerts_firing_all',
      help: 'All alerts firing, any task.',
      type: 'gauge',
      samples: [{ labels: {}, value: firing.reduce((n, a) => n + a.n, 0) }],
    },
    {
      name: 'sluice_rollup_lag_seconds',
      help: 'Seconds since each roll-up resolution was last brought up to date.',
      type: 'gauge',
      samples: g.rollups.map((r) => ({ labels: { resolution: `${r.resolution_s}s` }, value: Math.max(0, Number(r.lag_s)) })),
    },
    {
      name: 'sluice_webhook_deliveries',
      help: 'Webhook deliveries in the log by status (pending, delivered, failed).',
      type: 'gauge',
      samples: ['pending', 'delivered', 'failed'].map((s) => ({ labels: { status: s }, value: g.deliveries.find((d) => d.status === s)?.n ?? 0 })),
    },
    {
      name: 'sluice_control_plane_service_last_run_timestamp_seconds',
      help: 'When each control-plane service last finished a run.',
      type: 'gauge',
      samples: g.services.filter((s) => s.last_finished_s !== null).map((s) => ({ labels: { service: s.name }, value: Number(s.last_finished_s) })),
    },
    {
      name: 'sluice_db_oldest_snapshot_age_seconds',
      help: 'How long the oldest transaction holding a snapshot in this database has been open; vacuum cannot remove dead rows newer than it.',
      type: 'gauge',
      samples: [{ labels: {}, value: Math.max(0, Number(g.oldestSnapshotS)) }],
    },
    {
      name: 'sluice_control_plane_service_failing',
      help: '1 when the service\'s last run failed.',
      type: 'gauge',
      samples: g.services.map((s) => ({ labels: { service: s.name }, value: s.failing ? 1 : 0 })),
    },
  ];
  return renderFamilies(families);
}
