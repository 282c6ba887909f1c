// Fleet defaults (issue 16, three-level precedence) in the browser: an admin edits a
// default on Settings → Defaults (validated as typed, reviewed with what it changes,
// applied as a new config version); the task editor of a task that inherits it shows the
// inherited value and its source, and an override of it shows "task" with a way back.
// Checked in the database: the stored version's defaults and the task's runtime definition.
import { randomBytes } from 'node:crypto';
import { test, expect } from './support/fixtures';
import { shoot } from './support/shots';
import { e2eDb, seedUser, signInViaApi, trpcMutation } from './support/factories';
import { applyConfig, currentConfig } from '../server/services/config-versions';
import { SYSTEM_ACTOR } from '../server/db/audit';

// Screenshots (SLUICE_SHOTS_DIR) at three widths in two themes take long on a loaded machine.
test.describe.configure({ timeout: 300_000 });

test('an admin edits a fleet default; the task editor shows the inherited value and its source', async ({ page }) => {
  const db = e2eDb();
  const task = `e2e-inherit-${randomBytes(3).toString('hex')}`;
  const cur = await currentConfig(db);
  // A task that sets nothing of its own inherits every default; the defaults start empty.
  await applyConfig(db, SYSTEM_ACTOR, { tasks: [...cur.config.tasks, { name: task, partitions: 1 }] }, { message: 'fleet defaults e2e' });

  const admin = await seedUser('admin');
  await signInViaApi(page.request, admin);
  await page.goto('/settings/defaults');
  const maxAttempts = page.getByLabel('Max attempts', { exact: true });
  await expect(maxAttempts).toHaveValue('');
  await expect(maxAttempts).toHaveAttribute('placeholder', '3');

  // Hostile values are refused at the field before any review.
  const hysteresis = page.getByLabel('Hysteresis', { exact: true });
  await hysteresis.fill('2');
  await expect(hysteresis).toHaveAttribute('aria-invalid', 'true');
  await expect(page.getByText('must be at most 0.9')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Review changes' })).toBeDisabled();
  await hysteresis.fill('');

  await maxAttempts.fill('7');
  await page.getByLabel('Timeout', { exact: true }).fill('45000');
  // Key-wait lines for every key without its own: none built in.
  const keyWaitWarning = page.getByLabel('Key wait: any key without its own lines (oldest due) warning', { exact: true });
  await expect(keyWaitWarning).toHaveAttribute('placeholder', 'none');
  await keyWaitWarning.fill('60000');
  await page.getByLabel('Key wait: any key without its own lines (oldest due) critical', { exact: true }).fill('600000');
  await page.getByRole('button', { name: 'Review changes' }).click();
  const review = page.getByRole('region', { name: 'Apply new fleet defaults' });
  await expect(review.locator('li[data-path="retry.maxAttempts"]')).toHaveText('retry.maxAttempts: — → 7');
  await expect(review.getByText(task)).toBeVisible();
  await review.getByLabel('Change message').fill('fewer retries fleet-wide, longer timeout');
  await review.getByRole('button', { name: /^Apply/ }).click();
  const done = page.getByText(/Applied as config version \d+/);
  await expect(done).toBeVisible();
  const version = Number(/version (\d+)/.exec((await done.textContent()) ?? '')![1]);

  const stored = await db.query(`SELECT config -> 'defaults' AS defaults, author, message FROM config_versions WHERE version = $1`, [version]);
  expect(stored.rows[0]).toEqual({
    defaults: { timeoutMs: 45000, retry: { maxAttempts: 7 }, alertPolicy: { keyWaitMs: { warning: 60000, critical: 600000 } } },
    author: admin.email,
    message: 'fewer retries fleet-wide, longer timeout',
  });
  const runtime = await db.query(`SELECT definition FROM task_runtime WHERE task = $1`, [task]);
  expect(runtime.rows[0].definition).toMatchObject({ timeoutMs: 45000, retry: { maxAttempts: 7 } });
  await expect(page.locator('[data-path="retry.maxAttempts"]').getByText('fleet', { exact: true })).toBeVisible();
  await shoot(page, 'fleet-defaults');

  // The task editor: the inherited value, its source; an edit makes it the task's own.
  await page.goto(`/tasks/${task}`);
  await expect(page.getByLabel('Max attempts', { exact: true })).toHaveValue('7');
  await expect(page.getByTestId('origin-retry.maxAttempts')).toHaveText(/fleet default\s*inherited/);
  await expect(page.getByTestId('origin-retry.baseDelayMs')).toHaveText(/built-in default\s*inherited/);
  await expect(page.getByTestId('origin-timeoutMs')).toHaveText(/fleet default\s*inherited/);
  await expect(page.getByTestId('origin-thresholds.keyWaitMs')).toHaveText(/fleet default\s*inherited/);
  await expect(page.getByLabel('Key wait warning (ms)', { exact: true })).toHaveAttribute('placeholder', '60000');
  await shoot(page, 'task-editor-origins');
  const timeout = page.getByLabel('Timeout (ms)', { exact: true });
  await expect(timeout).toHaveValue('45000');
  await timeout.fill('1000');
  await expect(page.getByTestId('origin-timeoutMs')).toHaveText(/task\s*overrides the fleet default 45000/);
  if (process.env.SLUICE_SHOTS_DIR) await page.screenshot({ path: `${process.env.SLUICE_SHOTS_DIR}/task-editor-override.png`, fullPage: true });
  await page.getByRole('button', { name: 'Use the default for timeoutMs' }).click();
  await expect(timeout).toHaveValue('45000');
  await expect(page.getByTestId('origin-timeoutMs')).toHaveText(/fleet default\s*inherited/);

  // Leave the fleet as the other specs expect it: no defaults.
  const reset = await trpcMutation(page.request, 'defaults.save', { defaults: {}, basedOn: version, message: 'reset after e2e' });
  expect(reset.status).toBe(200);
  const after = await db.query(`SELECT config ? 'defaults' AS has FROM config_versions WHERE version = $1`, [version + 1]);
  expect(after.rows[0].has).toBe(false);
});

test('an operator sees the defaults read-only and cannot save them', async ({ page }) => {
  const op = await seedUser('operator');
  await signInViaApi(page.request, op);
  await page.goto('/settings/defaults');
  await expect(page.getByLabel('Max attempts', { exact: true })).toBeDisabled();
  await expect(page.getByRole('button', { name: 'Review changes' })).toHaveCount(0);
  const before = (await e2eDb().query<{ v: number }>('SELECT max(version)::int AS v FROM config_versions')).rows[0]!.v;
  const r = await trpcMutation(page.request, 'defaults.save', { defaults: { timeoutMs: 5 }, basedOn: before, message: 'x' });
  expect(r.status).toBe(403);
  expect((await e2eDb().query<{ v: number }>('SELECT max(version)::int AS v FROM config_versions')).rows[0]!.v).toBe(before);
});
