// The Overview draws every chart of a task against that task's own thresholds (the
// reference lines and their values are read from the SVG), colours breaches, and the
// range picker changes the data (resolution, number of buckets, the URL).
import { randomBytes } from 'node:crypto';
import { test, expect } from './support/fixtures';
import { e2eDb, signInViaApi } from './support/factories';
import { e2eEnv } from './support/e2e-env';
import { seedObserve } from './support/observe-seed';

// Seeding 24 h of samples and rolling them up takes a few seconds on a busy machine.
test.describe.configure({ timeout: 90_000 });

test('overview charts draw the task thresholds and the range picker changes the data', async ({ page }) => {
  const seed = await seedObserve(e2eDb(), randomBytes(3).toString('hex'));
  const env = e2eEnv();
  await signInViaApi(page.request, { email: env.adminEmail, password: env.adminPassword });

  await page.goto(`/?task=${seed.hotTask}`);
  const card = page.getByTestId(`task-card-${seed.hotTask}`);
  await expect(card).toHaveAttribute('data-status', 'critical');
  await expect(page.getByTestId(`task-card-${seed.calmTask}`)).toHaveAttribute('data-status', 'ok');
  // Idle: empty partitions are within every threshold.
  await expect(page.getByTestId(`task-card-${seed.idleTask}`)).toHaveAttribute('data-status', 'ok');

  const charts = page.getByTestId('task-charts');
  await expect(charts).toHaveAttribute('data-task', seed.hotTask);
  await expect(charts).toHaveAttribute('data-resolution', '10');

  // Each chart with its thresholds from the task's config (depth and p99 were set on the
  // task; the others are the defaults of seed 000's table).
  const expected: Record<string, [number, number, string, string]> = {
    depth: [seed.depthWarning, seed.depthCritical, 'warning 800', 'critical 2,000'],
    imbalance: [2, 5, 'warning 2×', 'critical 5×'],
    'retry-rate': [0.1, 0.25, 'warning 10%', 'critical 25%'],
    'dlq-rate': [0.01, 0.05, 'warning 1.0%', 'critical 5.0%'],
    p99: [4000, 10_000, 'warning 4.0 s', 'critical 10 s'],
  };
  for (const [id, [warning, critical, wText, cText]] of Object.entries(expected)) {
    const chart = page.getByTestId(`chart-${id}`);
    await expect(chart, id).toHaveAttribute('data-state', 'ready');
    // Both thresholds are named: as a line when near the data, else at the top edge
    // (core/chart-scale yScale); change markers are reference lines too, so count the names.
    await expect(chart.locator('[data-testid="threshold-warning"], [data-testid="threshold-critical"]'), id).toHaveCount(2);
    const w = chart.getByTestId('threshold-warning');
    const c = chart.getByTestId('threshold-critical');
    await expect(w, id).toHaveAttribute('data-value', String(warning));
    await expect(c, id).toHaveAttribute('data-value', String(critical));
    await expect(w, id).toHaveText(wText);
    await expect(c, id).toHaveText(cText);
    // A threshold near the data is drawn inside the plot: a real SVG line with a y coordinate.
    if ((await w.getAttribute('data-placement')) === 'line') {
      const y = await chart.locator('.recharts-reference-line line').first().getAttribute('y1');
      expect(Number(y), id).toBeGreaterThan(0);
    }
  }
  // The critical line sits above the warning line (smaller y in SVG).
  const depthLines = page.getByTestId('chart-depth').locator('.recharts-reference-line line');
  const [wy, cy] = [Number(await depthLines.nth(0).getAttribute('y1')), Number(await depthLines.nth(1).getAttribute('y1'))];
  expect(cy).toBeLessThan(wy);
  // Breaches are coloured: the hot partition's points above the lines.
  await expect(page.getByTestId('chart-depth').locator('[data-breach="critical"]').first()).toBeVisible();
  await expect(page.getByTestId('chart-retry-rate').locator('[data-breach="warning"]').first()).toBeVisible();
  // Throughput has no thresholds in a task's config, so no reference lines.
  await expect(page.getByTestId('chart-throughput').locator('[data-testid^="threshold-"]')).toHaveCount(0);
  // A legend per partition and a tooltip on hover.
  await expect(page.getByTestId('chart-depth').getByTestId('chart-legend')).toContainText('partition 3');
  await page.getByTestId('chart-depth').scrollIntoViewIfNeeded();
  const box = (await page.getByTestId('chart-depth').locator('.recharts-surface').boundingBox())!;
  await page.mouse.move(box.x + box.width * 0.5, box.y + box.height / 2);
  await page.mouse.move(box.x + box.width * 0.8, box.y + box.height / 2, { steps: 5 });
  await expect(page.getByTestId('chart-tooltip')).toContainText('UTC');
  await expect(page.getByTestId('chart-tooltip')).toContainText('partition 3');

  const pointsAt1h = Number(await page.getByTestId('chart-depth').getAttribute('data-points'));
  expect(pointsAt1h).toBe(361);

  // The range picker: URL, resolution and data change.
  await page.getByTestId('range-24h').click();
  await expect(page).toHaveURL(new RegExp(`range=24h`));
  await expect(charts).toHaveAttribute('data-resolution', '300');
  await expect(page.getByTestId('chart-depth')).toHaveAttribute('data-state', 'ready');
  await expect(page.getByTestId('chart-depth')).toHaveAttribute('data-points', '289');
  await expect(page.getByTestId('range-24h')).toHaveAttribute('aria-checked', 'true');
  // The 24 h view reaches back before the hot partition started: its first buckets are under the line.
  await page.getByTestId('range-15m').click();
  await expect(charts).toHaveAttribute('data-resolution', '10');
  await expect(page.getByTestId('chart-depth')).toHaveAttribute('data-points', '91');

  // Reload keeps the range (it lives in the URL).
  await page.reload();
  await expect(page.getByTestId('range-15m')).toHaveAttribute('aria-checked', 'true');
  await expect(page.getByTestId('chart-depth')).toHaveAttribute('data-points', '91');
});

test('the task drill-down shows per-partition depth, owner and a drain forecast', async ({ page }) => {
  const seed = await seedObserve(e2eDb(), randomBytes(3).toString('hex'));
  const env = e2eEnv();
  await signInViaApi(page.request, { email: env.adminEmail, password: env.adminPassword });
  await page.goto(`/tasks/${seed.hotTask}/metrics`);
  await expect(page.getByTestId('partition-table').locator('tbody tr')).toHaveCount(8);
  const hot = page.getByTestId(`partition-row-${seed.hotPartition}`);
  await expect(hot).toContainText('2,600');
  await expect(hot.getByTestId('drain-forecast')).toHaveText('growing');
  await expect(page.getByTestId(`partition-row-0`).getByTestId('drain-forecast')).toHaveText(/^~|growing|empty/);
  await expect(page.getByTestId('chart-depth').getByTestId('threshold-critical')).toHaveAttribute('data-value', '2000');
});
