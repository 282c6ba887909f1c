// Limits (issue #19): the "Held by rate limits" chart. A task with a per-key rate gets rows
// beyond its keys' bursts through the engine's own functions (enqueue, a claim that spends
// the rates, no coordinator process), the sampler and the roll-ups run as the coordinator
// and the control plane run them, then the Overview and the task's metrics page must draw
// the chart with the number the database holds — and a task without a rate must not get it.
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { test, expect } from './support/fixtures';
import { e2eDb, signInViaApi } from './support/factories';
import { e2eEnv } from './support/e2e-env';
import { shoot } from './support/shots';
import { applyConfig } from '../server/services/config-versions';
import { SYSTEM_ACTOR } from '../server/db/audit';
import { enqueue } from '../server/services/enqueue';
import { claimExecutions } from '../server/db/claim-executions';
import { writeMetricSamples } from '../server/db/write-metric-samples';
import { rollupMetrics } from '../server/control-plane/services/rollup-metrics';
import type { TaskDefinitionInput } from '../server/core/task-definition';
import { fakeCoordinator } from '../test/support/engine-fixtures';

const HOUR = 3_600_000;

async function seed(pool: pg.Pool, suffix: string) {
  const rated = `rated-${suffix}`;
  const plain = `plain-${suffix}`;
  const tasks: TaskDefinitionInput[] = [
    // each tenant starts burst + 1 = 3 at once, then one an hour: the rest waits on the rate
    { name: rated, partitions: 2, concurrency: 50, groups: [{ name: 'tenant', limit: 50, keyPath: 'tenant', rate: { limit: 1, per: HOUR, burst: 2 } }] },
    { name: plain, partitions: 2, concurrency: 50 },
  ];
  const current = await pool.query<{ config: { tasks: TaskDefinitionInput[] } }>('SELECT config FROM config_versions ORDER BY version DESC LIMIT 1');
  const others = (current.rows[0]?.config.tasks ?? []).filter((t) => !tasks.some((n) => n.name === t.name));
  await applyConfig(pool, SYSTEM_ACTOR, { tasks: [...others, ...tasks] }, { message: 'rate-held e2e seed' });
  const me = await fakeCoordinator(pool, [rated, plain]);
  await enqueue(pool, rated, [
    ...Array.from({ length: 20 }, (_, i) => ({ payload: { tenant: 'acme', i } })),
    ...Array.from({ length: 4 }, (_, i) => ({ payload: { tenant: 'globex', i } })),
  ]);
  await enqueue(pool, plain, Array.from({ length: 6 }, (_, i) => ({ payload: { i } })));
  for (let i = 0; i < 4; i++) if ((await claimExecutions(pool, me, rated, 50, HOUR)).length === 0) break;
  // the plain task's rows stay queued (no rate holds them)
  await writeMetricSamples(pool);
  await rollupMetrics(pool, new Date());
  return { rated, plain };
}

test('the rate-held chart shows the executions a task\'s rates hold, as the database has them, and only for a rated task', async ({ page }) => {
  test.setTimeout(90_000);
  const db = e2eDb();
  const { rated, plain } = await seed(db, randomBytes(3).toString('hex'));
  // what the sampler wrote: acme's 17 and globex's 1 queued rows, both keys held by their rate
  const sample = await db.query<{ rate_held: number; depth: number }>(
    `SELECT rate_held, depth FROM metric_samples WHERE task = $1 AND partition = -1 ORDER BY at DESC LIMIT 1`,
    [rated],
  );
  expect(sample.rows[0]).toEqual({ rate_held: 18, depth: 18 });
  const plainSample = await db.query<{ rate_held: number }>(`SELECT rate_held FROM metric_samples WHERE task = $1 AND partition = -1 ORDER BY at DESC LIMIT 1`, [plain]);
  expect(plainSample.rows[0]!.rate_held).toBe(0);

  const env = e2eEnv();
  await signInViaApi(page.request, { email: env.adminEmail, password: env.adminPassword });

  /** The latest series value at the resolution the page draws (what its card must show). */
  const drawnValue = async (task: string) => {
    const res = await page.getByTestId('task-charts').getAttribute('data-resolution');
    const r = await db.query<{ v: number | null }>(
      `SELECT rate_held AS v FROM metric_rollup_series WHERE resolution_s = $1 AND task = $2 AND rate_held IS NOT NULL ORDER BY bucket DESC LIMIT 1`,
      [Number(res), task],
    );
    return r.rows[0]?.v ?? null;
  };

  for (const url of [`/?task=${rated}`, `/tasks/${rated}/metrics`]) {
    await page.goto(url);
    await expect(page.getByTestId('task-charts')).toHaveAttribute('data-task', rated);
    const chart = page.getByTestId('chart-rate-held');
    await expect(chart, url).toHaveAttribute('data-state', 'ready');
    await expect(chart.getByText('Executions held by rate limits', { exact: true })).toBeVisible();
    await expect(chart).toContainText('waiting for a rate slot · max per bucket');
    const held = await drawnValue(rated);
    expect(held, url).toBe(18);
    await expect(chart.getByTestId('chart-current'), url).toHaveText(String(held));
    await expect(chart.getByTestId('chart-legend')).toContainText('held by a rate limit');
    await expect(chart.getByTestId('chart-legend')).toContainText('depth (all partitions)');
    // no thresholds: a gauge of waiting work, not a judged metric
    await expect(chart.locator('[data-testid^="threshold-"]')).toHaveCount(0);
  }
  await shoot(page, 'rate-held-metrics');

  for (const url of [`/?task=${plain}`, `/tasks/${plain}/metrics`]) {
    await page.goto(url);
    await expect(page.getByTestId('task-charts')).toHaveAttribute('data-task', plain);
    await expect(page.getByTestId('chart-depth'), url).toHaveAttribute('data-state', 'ready');
    await expect(page.getByTestId('chart-rate-held'), url).toHaveCount(0);
  }
});
