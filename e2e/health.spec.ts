// Health (issue 16) in the console: the task drill-down charts the backpressure outcomes
// and p99 wait apart from p99 run, each against its lines, and lists the reconciler's
// repairs; the Coordinators page shows each member's own timings. Asserted against the
// database the page reads.
import { randomBytes } from 'node:crypto';
import { test, expect } from './support/fixtures';
import { e2eDb, signInViaApi } from './support/factories';
import { e2eEnv } from './support/e2e-env';
import { seedObserve } from './support/observe-seed';
import { registerCoordinator } from '../server/db/coordinator-membership';
import { rollupMetrics } from '../server/control-plane/services/rollup-metrics';

test.describe.configure({ timeout: 300_000 });

const SHOTS = process.env.HEALTH_SHOTS_DIR;

test('backpressure, wait and run charts with their lines; reconciler repairs; coordinator timings', async ({ page, context }) => {
  const pool = e2eDb();
  const suffix = randomBytes(3).toString('hex');
  const seed = await seedObserve(pool, suffix);
  const task = seed.hotTask;
  // Backpressure outcomes and wait/run p99s on the task totals of the last 20 minutes.
  await pool.query(
    `UPDATE metric_samples SET shed = 3, rejected = 5, throttled = 20, spills = 8, wait_p99_ms = 45000, run_p99_ms = 1200
     WHERE task = $1 AND partition = -1 AND at > now() - interval '20 minutes'`,
    [task],
  );
  await rollupMetrics(pool, new Date(), { rebuild: true });
  const series = await pool.query(`SELECT sum(shed)::int AS shed, max(wait_p99_ms) AS wait FROM metric_rollup_series WHERE task = $1 AND resolution_s = 10`, [task]);
  expect(series.rows[0].shed).toBeGreaterThan(0);
  expect(series.rows[0].wait).toBe(45000);
  await pool.query(`INSERT INTO reconcile_log (task, counter, partition, recorded, actual) VALUES ($1, 'partition.depth', 3, 12, 9)`, [task]);
  const name = `health-${suffix}`;
  await registerCoordinator(pool, { name, host: 'e2e', pid: 1, tasks: [task], slots: 4, metricsPort: null, timings: { heartbeatMs: 2000, staleMs: 15_000, leaseGraceMs: 5000 } });

  const env = e2eEnv();
  await signInViaApi(page.request, { email: env.adminEmail, password: env.adminPassword });
  await page.goto(`/tasks/${task}/metrics`);

  const lines: Record<string, [number, number]> = { shed: [0, 0], 'reject-rate': [0.01, 0.25], 'wait-p99': [30_000, 300_000], 'run-p99': [4000, 10_000] };
  for (const [id, [warning, critical]] of Object.entries(lines)) {
    const chart = page.getByTestId(`chart-${id}`);
    await expect(chart, id).toHaveAttribute('data-state', 'ready');
    await expect(chart.getByTestId('threshold-warning'), id).toHaveAttribute('data-value', String(warning));
    await expect(chart.getByTestId('threshold-critical'), id).toHaveAttribute('data-value', String(critical));
  }
  // Any shed is critical: the shed points are coloured; the wait line is breached, run is not.
  await expect(page.getByTestId('chart-shed').locator('[data-breach="critical"]').first()).toBeVisible();
  await expect(page.getByTestId('chart-wait-p99').locator('[data-breach="warning"]').first()).toBeVisible();
  await expect(page.getByTestId('chart-run-p99').locator('[data-breach]')).toHaveCount(0);
  // No threshold lines on the outcomes chart (its reference lines are change markers only).
  await expect(page.getByTestId('chart-backpressure').getByTestId(/^threshold-(warning|critical)$/)).toHaveCount(0);
  await expect(page.getByTestId('chart-shed').getByTestId(/^threshold-(warning|critical)$/).first()).toBeAttached();

  const repairs = page.getByTestId('reconcile-repairs');
  await expect(repairs.getByRole('row')).toHaveCount(2);
  await expect(repairs).toContainText('partition.depth');
  await expect(repairs).toContainText('partition 3');

  if (SHOTS) {
    for (const theme of ['light', 'dark'] as const) {
      await context.addCookies([{ name: 'sluice_theme', value: theme, url: page.url() }]);
      for (const width of [1440, 1280, 390]) {
        await page.setViewportSize({ width, height: 1000 });
        await page.reload();
        await expect(page.getByTestId('chart-shed')).toHaveAttribute('data-state', 'ready');
        await page.getByTestId('chart-run-p99').scrollIntoViewIfNeeded();
        await page.screenshot({ path: `${SHOTS}/metrics-${theme}-${width}.png`, fullPage: true });
      }
    }
  }

  await page.goto('/coordinators');
  const row = page.locator(`[data-coordinator="${name}"]`);
  await expect(row.getByTestId('coordinator-timings')).toHaveText('beat 2 s · stale 15 s · grace 5 s');
  const stored = await pool.query(`SELECT heartbeat_ms, stale_ms, lease_grace_ms FROM coordinators WHERE name = $1`, [name]);
  expect(stored.rows[0]).toEqual({ heartbeat_ms: 2000, stale_ms: 15_000, lease_grace_ms: 5000 });
  if (SHOTS) await page.screenshot({ path: `${SHOTS}/coordinators.png`, fullPage: true });
});
