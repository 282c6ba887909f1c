// Health alerts on a real database (issue 16): backpressure outcomes counted from the
// enqueue path through samples and roll-ups to the alert, the chart and /metrics.
import { describe, it, expect, beforeAll } from 'vitest';
import { testDatabase, type TestDatabase } from './db';
import { applyTasks } from '../support/engine-fixtures';
import { enqueue } from '../../server/services/enqueue';
import { evaluateAlerts } from '../../server/services/alerts';
import { writeMetricSamples } from '../../server/db/write-metric-samples';
import { rollupMetrics } from '../../server/control-plane/services/rollup-metrics';
import { getTaskCharts } from '../../server/presenters/task-metrics';
import { controlPlaneMetricsText } from '../../server/presenters/control-plane-metrics';
import { DEFAULT_ALERT_POLICY, type AlertPolicy } from '../../server/core/alert-evaluation';
import { isCoreError } from '../../server/core/errors';
import { fakeCoordinator, lowerClaimFloors } from '../support/engine-fixtures';
import { claimExecutions } from '../../server/db/claim-executions';
import { finishExecutions } from '../../server/db/finish-executions';
import { registerCoordinator, cleanupStaleMembers } from '../../server/db/coordinator-membership';
import { syncOwnership } from '../../server/db/partition-ownership';
import { reconcileTask } from '../../server/db/reconcile-counters';
import { DEFAULT_FLEET_POLICY, type FleetPolicy } from '../../server/core/alert-fleet-rules';
import { getTaskPartitions } from '../../server/presenters/task-metrics';
import { listCoordinators } from '../../server/presenters/coordinators';
import { getAlert } from '../../server/presenters/alerts';

let db: TestDatabase;
const policy: AlertPolicy = { ...DEFAULT_ALERT_POLICY, forMs: 0, clearForMs: 0, windowMs: 60_000 };

async function alerts(task: string, rule: string) {
  const r = await db.pool.query(`SELECT * FROM alerts WHERE task = $1 AND rule = $2 ORDER BY id`, [task, rule]);
  return r.rows;
}

beforeAll(async () => {
  db = await testDatabase();
  await applyTasks(db.pool, [
    { name: 'lossy', partitions: 1, backpressure: { policy: 'shed', maxDepth: 5, shedPercent: 100 } },
    { name: 'strict', partitions: 1, backpressure: { policy: 'reject', maxDepth: 5 } },
    { name: 'slowed', partitions: 1, backpressure: { policy: 'throttle', maxDepth: 5, throttleDelayMs: 1, throttleMaxDelayMs: 10 } },
    { name: 'parked', partitions: 1, backpressure: { policy: 'spill', maxDepth: 5 } },
    { name: 'backlog', partitions: 1 },
    { name: 'fleet', partitions: 4 },
  ]);
});

describe('backpressure outcomes', () => {
  it('a shed policy under overload raises the critical shed alert; rejects raise the reject-rate alert', async () => {
    // Nobody claims: the partition fills to maxDepth and every further execution meets the policy.
    const shed = await enqueue(db.pool, 'lossy', Array.from({ length: 25 }, (_, i) => ({ payload: { i } })));
    expect(shed.shed).toBe(20);
    await enqueue(db.pool, 'strict', Array.from({ length: 5 }, (_, i) => ({ payload: { i } })));
    for (let i = 0; i < 3; i++) {
      const e = await enqueue(db.pool, 'strict', [{ payload: { i } }]).catch((x: unknown) => x);
      expect(isCoreError(e) && e.code).toBe('TOO_MANY_REQUESTS');
    }
    const throttled = await enqueue(db.pool, 'slowed', Array.from({ length: 8 }, (_, i) => ({ payload: { i } })));
    expect(throttled.throttledMs).toBeGreaterThan(0);
    const spilled = await enqueue(db.pool, 'parked', Array.from({ length: 9 }, (_, i) => ({ payload: { i } })));
    expect(spilled.spilled).toBe(4);

    const counters = await db.pool.query(
      `SELECT task, shed_total, rejected_total, throttled_total, spilled_total FROM partition_stats WHERE task IN ('lossy', 'parked', 'slowed', 'strict') ORDER BY task`,
    );
    expect(counters.rows).toEqual([
      { task: 'lossy', shed_total: 20, rejected_total: 0, throttled_total: 0, spilled_total: 0 },
      { task: 'parked', shed_total: 0, rejected_total: 0, throttled_total: 0, spilled_total: 4 },
      { task: 'slowed', shed_total: 0, rejected_total: 0, throttled_total: 8, spilled_total: 0 },
      { task: 'strict', shed_total: 0, rejected_total: 3, throttled_total: 0, spilled_total: 0 },
    ]);

    await writeMetricSamples(db.pool);
    const now = new Date();
    const r = await evaluateAlerts(db.pool, now, policy);
    expect(r.fired).toBeGreaterThanOrEqual(2);

    const [shedAlert] = await alerts('lossy', 'shedPerSecond');
    expect(shedAlert).toMatchObject({ status: 'firing', severity: 'critical', threshold: 0 });
    expect(shedAlert.evidence).toMatchObject({ policy: 'shed', maxDepth: 5, window: { shed: 20, windowMs: 60_000 } });
    expect(shedAlert.remedy).toMatch(/shed policy is dropping executions/);

    // 3 refused of 8 offered = 37.5 %: past the 25 % critical line.
    const [rejectAlert] = await alerts('strict', 'rejectRate');
    expect(rejectAlert).toMatchObject({ status: 'firing', severity: 'critical' });
    expect(rejectAlert.last_value).toBeCloseTo(3 / 8);

    // Throttling and spilling are charted, not alerted.
    expect(await alerts('slowed', 'shedPerSecond')).toEqual([]);
    expect(await alerts('parked', 'rejectRate')).toEqual([]);
  });

  it('the outcomes reach the roll-up series, the task charts and /metrics', async () => {
    await rollupMetrics(db.pool, new Date(Date.now() + 20_000));
    const series = await db.pool.query(`SELECT task, shed, rejected, throttled, spills FROM metric_rollup_series WHERE resolution_s = 10 AND task IN ('lossy', 'parked', 'slowed', 'strict') ORDER BY task`);
    expect(series.rows).toEqual([
      { task: 'lossy', shed: 20, rejected: 0, throttled: 0, spills: 0 },
      { task: 'parked', shed: 0, rejected: 0, throttled: 0, spills: 4 },
      { task: 'slowed', shed: 0, rejected: 0, throttled: 8, spills: 0 },
      { task: 'strict', shed: 0, rejected: 3, throttled: 0, spills: 0 },
    ]);
    const charts = await getTaskCharts(db.pool, { task: 'lossy', range: '1h' }, new Date(Date.now() + 20_000));
    const withShed = charts.points.filter((p) => (p.shedRate ?? 0) > 0);
    expect(withShed.length).toBeGreaterThan(0);
    expect(charts.backpressure.shedPerSecond).toEqual({ warning: 0, critical: 0 });

    const text = await controlPlaneMetricsText(db.pool);
    expect(text).toMatch(/^sluice_task_backpressure_total\{task="lossy",outcome="shed"\} 20$/m);
    expect(text).toMatch(/^sluice_task_backpressure_total\{task="strict",outcome="rejected"\} 3$/m);
    expect(text).toMatch(/^sluice_task_backpressure_total\{task="slowed",outcome="throttled"\} 8$/m);
    expect(text).toMatch(/^sluice_task_backpressure_total\{task="parked",outcome="spilled"\} 4$/m);
  });
});

describe('wait vs run time', () => {
  it('a long wait raises the wait alert, not the latency alert that judges run time', async () => {
    // Ready 40 s ago (enqueued two hours ago with a delay): waited 40 s, runs a few ms.
    await enqueue(db.pool, 'backlog', Array.from({ length: 3 }, (_, i) => ({ payload: { i } })));
    await db.pool.query(`UPDATE executions SET run_at = now() - interval '40 seconds', enqueued_at = now() - interval '2 hours' WHERE task = 'backlog'`);
    await lowerClaimFloors(db.pool, 'backlog');
    const coord = await fakeCoordinator(db.pool, ['backlog']);
    const got = await claimExecutions(db.pool, coord, 'backlog', 10, 60_000);
    expect(got).toHaveLength(3);
    await finishExecutions(db.pool, 'backlog', got.map((e) => ({ id: e.id, leaseToken: e.leaseToken, outcome: 'succeeded' as const })));

    const stats = await db.pool.query(`SELECT wait_hist, run_hist, lat_hist FROM partition_outcomes WHERE task = 'backlog'`);
    const bucketOf = (h: number[]) => h.findIndex((n) => Number(n) > 0);
    // bounds …, 25 s, 30 s, 60 s, 300 s: 40 s lands in the ≤ 60 s bucket; two hours past the last bound
    expect(bucketOf(stats.rows[0].wait_hist)).toBe(14);
    expect(bucketOf(stats.rows[0].run_hist)).toBeLessThan(8);
    expect(bucketOf(stats.rows[0].lat_hist)).toBe(16);

    await writeMetricSamples(db.pool);
    const sample = await db.pool.query(`SELECT wait_p99_ms, run_p99_ms, latency_p99_ms FROM metric_samples WHERE task = 'backlog' AND partition = -1 ORDER BY at DESC LIMIT 1`);
    expect(sample.rows[0].wait_p99_ms).toBeGreaterThan(30_000);
    expect(sample.rows[0].wait_p99_ms).toBeLessThanOrEqual(60_000);
    expect(sample.rows[0].run_p99_ms).toBeLessThan(5000);
    expect(sample.rows[0].latency_p99_ms).toBeGreaterThan(300_000);

    await evaluateAlerts(db.pool, new Date(), policy);
    const [wait] = await alerts('backlog', 'waitP99Ms');
    expect(wait).toMatchObject({ status: 'firing', severity: 'warning', threshold: 30_000 });
    expect(wait.evidence.runP99Ms).toBeLessThan(5000);
    expect(await alerts('backlog', 'p99LatencyMs')).toEqual([]);
  });
});

const fleetPolicy: FleetPolicy = { ...DEFAULT_FLEET_POLICY, forMs: 0 };
const open = async (task: string, rule: string) =>
  (await db.pool.query(`SELECT * FROM alerts WHERE task = $1 AND rule = $2 AND status IN ('firing', 'acknowledged') ORDER BY id`, [task, rule])).rows;
const member = async (name: string) => {
  const id = await registerCoordinator(db.pool, {
    name, host: 'test', pid: process.pid, tasks: ['fleet'], slots: 4, metricsPort: null, timings: { heartbeatMs: 200, staleMs: 1000, leaseGraceMs: 0 },
  });
  await syncOwnership(db.pool, id, [0, 1, 2, 3].map((partition) => ({ task: 'fleet', partition })), 1000);
  return id;
};

describe('fleet health', () => {
  it('a killed coordinator raises the stale and unowned-partition alerts; they resolve when a replacement joins', async () => {
    const first = await member('first');
    expect((await listCoordinators(db.pool)).coordinators.find((c) => c.id === first)).toMatchObject({
      status: 'live', timings: { heartbeatMs: 200, staleMs: 1000, leaseGraceMs: 0 },
    });
    await evaluateAlerts(db.pool, new Date(), policy, fleetPolicy);
    expect(await open('fleet', 'unownedPartitions')).toEqual([]);
    expect(await open('', 'coordinatorStale')).toEqual([]);

    // kill -9: no more heartbeats. Judged by its own 1 s threshold; the cleanup stops it and frees its partitions.
    await db.pool.query(`UPDATE coordinators SET last_heartbeat_at = now() - interval '5 seconds' WHERE id = $1`, [first]);
    expect((await listCoordinators(db.pool)).coordinators.find((c) => c.id === first)?.status).toBe('stale');
    await cleanupStaleMembers(db.pool, 1000, 3_600_000);
    await evaluateAlerts(db.pool, new Date(), policy, fleetPolicy);
    const [stale] = await open('', 'coordinatorStale');
    expect(stale).toMatchObject({ subject: 'first@test', severity: 'critical' });
    expect(stale.evidence).toMatchObject({ coordinator: first, staleMs: 1000, replacedBy: null, status: 'stopped' });
    // The alert pages: one summary line, evidence without a task chart, remedies that link.
    const detail = await getAlert(db.pool, { id: Number(stale.id) });
    expect(detail).toMatchObject({ summary: 'Coordinator stale — fleet: first@test', chart: null, taskExists: false });
    expect(detail.remedies).toEqual([expect.objectContaining({ href: '/coordinators', text: expect.stringMatching(/restart it or start another/) })]);
    const [unowned] = await open('fleet', 'unownedPartitions');
    expect(unowned).toMatchObject({ severity: 'critical', last_value: 4 });
    expect(unowned.evidence).toMatchObject({ unowned: [0, 1, 2, 3], partitions: 4 });

    // A replacement joins and takes the partitions: both resolve (clearForMs 0).
    await member('second');
    await evaluateAlerts(db.pool, new Date(), policy, fleetPolicy);
    expect(await open('', 'coordinatorStale')).toEqual([]);
    expect(await open('fleet', 'unownedPartitions')).toEqual([]);
    const resolved = await db.pool.query(`SELECT rule, status FROM alerts WHERE (rule = 'coordinatorStale' OR (rule = 'unownedPartitions' AND task = 'fleet')) ORDER BY rule`);
    expect(resolved.rows).toEqual([
      { rule: 'coordinatorStale', status: 'resolved' },
      { rule: 'unownedPartitions', status: 'resolved' },
    ]);
  });

  it('a long transaction holding a snapshot raises the vacuum-horizon alert, resolved when it ends', async () => {
    const holder = await db.pool.connect();
    try {
      await holder.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
      await holder.query('SELECT count(*) FROM executions');
      await new Promise((r) => setTimeout(r, 1200));
      const strict = { ...fleetPolicy, vacuumHorizonMs: { warning: 1000, critical: 600_000 } };
      await evaluateAlerts(db.pool, new Date(), policy, strict);
      const [h] = await open('', 'vacuumHorizon');
      expect(h).toMatchObject({ subject: 'postgres', severity: 'warning', threshold: 1000 });
      expect(h.evidence.oldestSnapshotMs).toBeGreaterThanOrEqual(1000);
      await holder.query('COMMIT');
      await evaluateAlerts(db.pool, new Date(), policy, strict);
      expect(await open('', 'vacuumHorizon')).toEqual([]);
    } finally {
      holder.release();
    }
  });

  it('a reconciler repair shows on the task and, repeated, raises the reconcile alert', async () => {
    await db.pool.query(`UPDATE partition_stats SET depth = depth + 7 WHERE task = 'fleet' AND partition = 2`);
    const repaired = await reconcileTask(db.pool, 'fleet');
    expect(repaired).toEqual([expect.objectContaining({ counter: 'partition.depth', partition: 2, recorded: 7, actual: 0 })]);

    const page = await getTaskPartitions(db.pool, 'fleet');
    expect(page.reconcileRepairs).toEqual([expect.objectContaining({ counter: 'partition.depth', partition: 2, recorded: 7, actual: 0 })]);

    await evaluateAlerts(db.pool, new Date(), policy, { ...fleetPolicy, reconcileRepairs: { warning: 0, critical: 10 } });
    const [r] = await open('fleet', 'reconcileRepairs');
    expect(r).toMatchObject({ severity: 'warning', last_value: 1 });
    expect(r.evidence.recent).toEqual([expect.objectContaining({ counter: 'partition.depth', partition: 2 })]);
  });
});
