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
import { fakeCoordinator } from '../support/engine-fixtures';
import { claimExecutions } from '../../server/db/claim-executions';
import { finishExecutions } from '../../server/db/finish-executions';

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
      `SELECT task, shed_total, rejected_total, throttled_total, spilled_total FROM partition_stats WHERE task <> 'backlog' ORDER BY task`,
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
    const series = await db.pool.query(`SELECT task, shed, rejected, throttled, spills FROM metric_rollup_series WHERE resolution_s = 10 AND task <> 'backlog' ORDER BY task`);
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
    const coord = await fakeCoordinator(db.pool, ['backlog']);
    const got = await claimExecutions(db.pool, coord, 'backlog', 10, 60_000);
    expect(got).toHaveLength(3);
    await finishExecutions(db.pool, 'backlog', got.map((e) => ({ id: e.id, leaseToken: e.leaseToken, outcome: 'succeeded' as const })));

    const stats = await db.pool.query(`SELECT wait_hist, run_hist, lat_hist FROM partition_stats WHERE task = 'backlog'`);
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
