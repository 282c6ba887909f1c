// The what-if preview in the task editor's review step: an operator lowers the hot
// tenant's override and, before applying, sees the predicted p99 wait of the most affected
// key (today vs proposed, computed from the task's recorded executions of the last hour),
// then applies. The page's figures are checked against the presenter on the same database,
// and the applied version in the database.
import { randomBytes } from 'node:crypto';
import { test, expect } from './support/fixtures';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { e2eEnv } from './support/e2e-env';
import { e2eDb, seedUser, signInViaApi } from './support/factories';
import { applyConfig } from '../server/services/config-versions';
import { SYSTEM_ACTOR } from '../server/db/audit';
import { registerCoordinator } from '../server/db/coordinator-membership';
import { previewTaskWhatIf } from '../server/presenters/task-whatif';
import { formatDuration } from '../components/charts/chart-format';
import type { TaskDefinitionInput } from '../server/core/task-definition';

async function seedRecordedTask(suffix: string) {
  const pool = e2eDb();
  const task = `whatif-${suffix}`;
  const def: TaskDefinitionInput = { name: task, partitions: 2, concurrency: 40, groups: [{ name: 'tenant', limit: 8, keyPath: 'tenant', overrides: { globex: 8 } }] };
  const current = await pool.query<{ config: { tasks: TaskDefinitionInput[] } }>('SELECT config FROM config_versions ORDER BY version DESC LIMIT 1');
  const others = (current.rows[0]?.config.tasks ?? []).filter((t) => t.name !== task);
  await applyConfig(pool, SYSTEM_ACTOR, { tasks: [...others, def] }, { message: 'what-if e2e seed' });
  // A live member serving the task (its heartbeat set ahead: no coordinator process runs in e2e).
  const me = await registerCoordinator(pool, { name: `e2e-whatif-${suffix}`, host: 'e2e', pid: process.pid, tasks: [task], slots: 40, metricsPort: null });
  await pool.query(`UPDATE coordinators SET last_heartbeat_at = now() + interval '1 hour' WHERE id = $1`, [me]);
  // The recording: 30 minutes of finished executions — globex one a second running 3 s
  // (3 at a time: fine under 8, too much for 2), acme one every 5 s running 1 s, initech one a minute.
  const insert = (tenant: string, everyS: number, runS: number, count: number) =>
    pool.query(
      `INSERT INTO executions (task, partition, state, payload, groups, run_at, enqueued_at, started_at, finished_at, attempts)
       SELECT $1, g % 2, 'succeeded', jsonb_build_object('tenant', $2::text), jsonb_build_object('tenant', $2::text),
              t, t, t, t + make_interval(secs => $4), 1
       FROM generate_series(0, $5 - 1) g, LATERAL (SELECT now() - interval '30 minutes' + make_interval(secs => g * $3) AS t) x`,
      [task, tenant, everyS, runS, count],
    );
  await insert('globex', 1, 3, 1790);
  await insert('acme', 5, 1, 358);
  // initech: 30 executions, too few waits for a p99 (the panel marks it).
  await insert('initech', 60, 1, 30);
  return { task, def };
}

/** Opens the review with the edit made and waits for the prediction. */
async function reviewLoweredGlobex(page: Page, task: string) {
  await page.goto(`/tasks/${task}`);
  await page.getByLabel('Limit for globex in tenant', { exact: true }).fill('2');
  await page.getByRole('button', { name: 'Review changes' }).click();
  const panel = page.getByRole('region', { name: 'What-if preview' });
  await expect(panel.getByTestId('what-if-top-key')).toContainText('tenant=globex', { timeout: 30_000 });
  return panel;
}

/** The review step (state the shared shoot() would lose on reload) at three widths, both themes, when SLUICE_SHOTS_DIR is set. */
async function shootReview(page: Page, task: string) {
  const dir = process.env.SLUICE_SHOTS_DIR;
  if (!dir) return;
  for (const theme of ['light', 'dark'] as const) {
    await page.context().addCookies([{ name: 'sluice_theme', value: theme, url: e2eEnv().baseUrl }]);
    for (const width of [1440, 1280, 390]) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
      await reviewLoweredGlobex(page, task);
      await page.screenshot({ path: path.join(dir, `what-if-review-${width}-${theme}.png`), fullPage: true });
    }
  }
  await page.setViewportSize({ width: 1280, height: 720 });
}

test('an operator sees the predicted p99 of the most affected key before applying', async ({ page }) => {
  const op = await seedUser('operator');
  await signInViaApi(page.request, op);
  const suffix = randomBytes(3).toString('hex');
  const { task, def } = await seedRecordedTask(suffix);

  test.setTimeout(180_000);
  const panel = await reviewLoweredGlobex(page, task);
  await expect(panel.getByTestId('what-if-coverage')).toContainText('2178 executions in the last 1 h, 2178 with a measured run time');

  // The same prediction from the presenter: the page shows its numbers.
  const expected = await previewTaskWhatIf(e2eDb(), { task: { ...def, groups: [{ ...def.groups![0]!, overrides: { globex: 2 } }] } as Record<string, unknown>, windowHours: 1, seed: 1 });
  const top = expected.keys[0]!;
  expect(top).toMatchObject({ group: 'tenant', key: 'globex' });
  expect(top.proposed!.p99WaitMs).toBeGreaterThan(60_000);
  expect(top.today!.p99WaitMs).toBeLessThan(1000);
  await expect(panel.getByTestId('what-if-top-p99')).toHaveText(formatDuration(top.proposed!.p99WaitMs));
  await expect(panel.getByTestId('what-if-top-key')).toContainText(`${formatDuration(top.today!.p99WaitMs)} today`);
  // The backlog alert it would cause is named before the click.
  await expect(panel.getByTestId('what-if-alerts-proposed')).toContainText('waitP99Ms');
  // Honest bounds: initech's 30 waits give no p99 (its slowest wait is shown, marked); globex's 1,790 do.
  const keys = panel.getByRole('table', { name: 'Most affected keys' });
  await expect(keys.getByRole('row', { name: /tenant=initech/ }).getByTestId('what-if-few-samples')).toBeVisible();
  await expect(keys.getByRole('row', { name: /tenant=globex/ }).getByTestId('what-if-few-samples')).toHaveCount(0);
  await expect(panel.getByText(/fewer than 100 waits in the window: the p99 shown is the key’s slowest wait/)).toBeVisible();
  await shootReview(page, task);
  if (process.env.SLUICE_SHOTS_DIR) await reviewLoweredGlobex(page, task);

  // Nothing was written by the preview; Apply stores the version.
  const before = (await e2eDb().query<{ v: number }>('SELECT max(version)::int AS v FROM config_versions')).rows[0]!.v;
  await page.getByLabel('Change message').fill('e2e: lower globex after seeing the what-if');
  await page.getByRole('button', { name: /^Apply as version \d+$/ }).click();
  await expect(page.getByText(`Applied as config version ${before + 1}`)).toBeVisible();
  const stored = await e2eDb().query<{ def: { groups: { overrides: Record<string, number> }[] } }>(
    `SELECT jsonb_path_query_first(config, '$.tasks[*] ? (@.name == $n)', jsonb_build_object('n', $1::text)) AS def FROM config_versions WHERE version = $2`,
    [task, before + 1],
  );
  expect(stored.rows[0]!.def.groups[0]!.overrides).toEqual({ globex: 2 });
});
