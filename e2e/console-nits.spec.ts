// Console nits (issue 17), page and database:
// - threshold labels that do not overlap: a DLQ rate that peaks at 60% puts the 1% and 5%
//   lines a few pixels apart on a scale reaching 60%+; their labels used to print over each
//   other. Now one label on the critical line names both, at every width;
// - a resolved alert reads by its peak, not the value it cleared at;
// - the Overview's "Alerts firing" counts fleet-wide alerts too and says how many.
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

test('a resolved alert row shows its peak; the Overview counts fleet-wide alerts', async ({ page }) => {
  const db = e2eDb();
  const task = `e2e-peak-${randomBytes(3).toString('hex')}`;
  const cur = await currentConfig(db);
  await applyConfig(db, SYSTEM_ACTOR, { ...cur.config, tasks: [...cur.config.tasks, { name: task, partitions: 1 }] }, { message: 'peak e2e' });
  const ins = await db.query<{ id: string }>(
    `INSERT INTO alerts (key, task, rule, subject, severity, status, since, fired_at, resolved_at, last_value, peak_value, threshold, last_observed_at)
     VALUES ($1, $2, 'depth', '', 'critical', 'resolved', now() - interval '10 minutes', now() - interval '9 minutes', now() - interval '1 minute', 12, 7400, 1000, now())
     RETURNING id`,
    [`${task}|depth|`, task],
  );
  const viewer = await seedUser('viewer');
  await signInViaApi(page.request, viewer);
  await page.goto(`/alerts?status=resolved&task=${task}`);
  const row = page.getByTestId(`alert-row-${ins.rows[0]!.id}`);
  await expect(row.getByTestId('alert-value')).toHaveText('peak 7,400');

  // A fleet-wide alert (task '') is on no card, but the strip counts it and says so.
  const key = `|dbConnections|e2e-${randomBytes(3).toString('hex')}`;
  await db.query(
    `INSERT INTO alerts (key, task, rule, subject, severity, status, since, fired_at, last_value, peak_value, last_observed_at)
     VALUES ($1, '', 'dbConnections', 'postgres', 'warning', 'firing', now(), now(), 0.9, 0.9, now())`,
    [key],
  );
  try {
    // The server's own evaluator may open other fleet-wide episodes meanwhile (coordinators
    // earlier tests killed go stale): the strip must match the table as read beside it.
    await page.goto('/');
    const strip = page.getByTestId('fleet-alerts-firing');
    await expect(async () => {
      const before = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM alerts WHERE task = '' AND status = 'firing'`);
      await page.reload();
      const text = (await strip.textContent()) ?? '';
      const after = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM alerts WHERE task = '' AND status = 'firing'`);
      expect(before.rows[0]!.n).toBeGreaterThanOrEqual(1);
      expect(after.rows[0]!.n).toBe(before.rows[0]!.n);
      expect(text).toContain(`${before.rows[0]!.n} fleet-wide`);
    }).toPass({ timeout: 20_000 });
  } finally {
    await db.query(`DELETE FROM alerts WHERE key = $1`, [key]);
  }
});
