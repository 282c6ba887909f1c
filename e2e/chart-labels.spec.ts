// Threshold labels that do not overlap (issue 17): a DLQ rate that peaks at 60% puts the
// 1% and 5% lines a few pixels apart on a scale reaching 60%+; their labels used to print
// over each other. Now one label on the critical line names both, at every width.
import { randomBytes } from 'node:crypto';
import { test, expect } from './support/fixtures';
import { shoot } from './support/shots';
import { e2eDb, seedUser, signInViaApi } from './support/factories';
import { applyConfig, currentConfig } from '../server/services/config-versions';
import { SYSTEM_ACTOR } from '../server/db/audit';
import { insertSamples } from '../test/support/observe-fixtures';
import { rollupMetrics } from '../server/control-plane/services/rollup-metrics';

test.describe.configure({ timeout: 300_000 });

test('DLQ-rate lines close together get one label naming both', async ({ page }) => {
  const db = e2eDb();
  const task = `e2e-dlq-${randomBytes(3).toString('hex')}`;
  const cur = await currentConfig(db);
  await applyConfig(db, SYSTEM_ACTOR, { ...cur.config, tasks: [...cur.config.tasks, { name: task, partitions: 2 }] }, { message: 'chart labels e2e' });
  const now = Date.now();
  const times: number[] = [];
  for (let t = now - 30 * 60_000; t <= now; t += 10_000) times.push(t);
  await insertSamples(db, {
    task,
    partitions: 2,
    intervalMs: 10_000,
    times,
    // Dead letters climb from 0 to 60% of finished over the half hour.
    values: (_p, t) => {
      const share = 0.6 * Math.min(1, (t - (now - 30 * 60_000)) / (30 * 60_000));
      return { depth: 10, arrivals: 40, processed: 40, deadLettered: Math.round((40 * share) / (1 - share)), inFlight: 1 };
    },
    totalLatency: () => ({ p50: 100, p99: 400 }),
  });
  await rollupMetrics(db, new Date(now), { rebuild: true });

  const viewer = await seedUser('viewer');
  await signInViaApi(page.request, viewer);
  for (const width of [1440, 1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await page.goto(`/?task=${task}`);
    const chart = page.getByTestId('chart-dlq-rate');
    await expect(chart).toHaveAttribute('data-state', 'ready');
    await expect(chart.getByTestId('threshold-critical')).toHaveText('warning 1.0% · critical 5.0%');
    await expect(chart.getByTestId('threshold-warning')).toHaveText('');
    // The retry-rate chart's lines (10% and 25%) stay far enough apart to keep their own labels.
    const retry = page.getByTestId('chart-retry-rate');
    if ((await retry.getAttribute('data-state')) === 'ready' && (await retry.getByTestId('threshold-warning').getAttribute('data-placement')) === 'line') {
      await expect(retry.getByTestId('threshold-warning')).not.toHaveText('');
    }
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.getByTestId('chart-dlq-rate').scrollIntoViewIfNeeded();
  await shoot(page, 'dlq-chart-labels');
});
