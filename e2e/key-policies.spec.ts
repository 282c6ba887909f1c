// Config precedence, the task and key levels (issue 16), in the browser: an operator sets a
// task's own resolve-after and a group key's own retry attempts and wait lines in the task
// editor; each field shows its effective value and where it comes from (built-in / fleet
// default / task / key); the applied version stores exactly what was typed.
import { randomBytes } from 'node:crypto';
import { test, expect } from './support/fixtures';
import { shoot } from './support/shots';
import { e2eDb, seedUser, signInViaApi } from './support/factories';
import { applyConfig, currentConfig } from '../server/services/config-versions';
import { SYSTEM_ACTOR } from '../server/db/audit';

test.describe.configure({ timeout: 300_000 });

test('an operator gives a key its own retry and wait lines; the editor shows each source', async ({ page }) => {
  const db = e2eDb();
  const task = `e2e-keys-${randomBytes(3).toString('hex')}`;
  const cur = await currentConfig(db);
  await applyConfig(
    db,
    SYSTEM_ACTOR,
    { ...cur.config, tasks: [...cur.config.tasks, { name: task, partitions: 1, retry: { maxAttempts: 5 }, groups: [{ name: 'tenant', limit: 2, keyPath: 'tenant' }] }] },
    { message: 'key policies e2e' },
  );
  const op = await seedUser('operator');
  await signInViaApi(page.request, op);
  await page.goto(`/tasks/${task}`);

  // Task alert policy: blank = the built-in value, with its source.
  await expect(page.getByTestId('origin-thresholds.clearAfterMs')).toHaveText(/built-in default\s*inherited/);
  const resolveAfter = page.getByLabel('Resolve after (ms)', { exact: true });
  await expect(resolveAfter).toHaveAttribute('placeholder', '120000');
  await resolveAfter.fill('30000');
  await expect(page.getByTestId('origin-thresholds.clearAfterMs')).toHaveText(/task\s*overrides the built-in default 120000/);

  // A key policy: blank fields show the task's value and its source.
  await page.getByRole('button', { name: 'Add key policy' }).click();
  await page.getByLabel('Policy key 1 of tenant').fill('acme');
  const card = page.getByTestId('key-policy-tenant-acme');
  await expect(card.getByTestId('key-origin-maxAttempts')).toHaveText('5 · task');
  await expect(card.getByTestId('key-origin-baseDelayMs')).toHaveText('1000 · built-in');
  // No key-wait lines at the task or fleet level: none.
  await expect(card.getByTestId('key-origin-waitWarning')).toHaveText('none · built-in');
  await card.getByLabel('Max attempts for acme in tenant').fill('9');
  await expect(card.getByTestId('key-origin-maxAttempts')).toHaveText(/^key\s*over 5 · task\s*Use default$/);
  // A half-typed pair says what is missing, and nothing can be reviewed.
  await card.getByLabel('Wait warning (ms) for acme in tenant').fill('2000');
  await expect(card.getByText('must be a number')).toBeVisible();
  await card.getByLabel('Wait critical (ms) for acme in tenant').fill('20000');
  await expect(card.getByText('must be a number')).toHaveCount(0);

  await page.getByRole('button', { name: 'Review changes' }).click();
  const diff = page.getByRole('region', { name: `Changes to ${task}` }).first();
  await expect(diff).toContainText('Group "tenant" › key "acme" › retry › max attempts');
  await expect(diff).toContainText('Thresholds › resolve after (ms)');
  await page.getByLabel('Change message').fill('e2e: acme retries more, alerts resolve sooner');
  await page.getByRole('button', { name: /^Apply as version \d+$/ }).click();
  await expect(page.getByText(/Applied as (config )?version \d+/)).toBeVisible();

  const stored = await db.query(`SELECT definition FROM task_runtime WHERE task = $1`, [task]);
  expect(stored.rows[0].definition).toMatchObject({
    thresholds: { clearAfterMs: 30000 },
    groups: [{ name: 'tenant', keyPolicies: { acme: { retry: { maxAttempts: 9 }, waitMs: { warning: 2000, critical: 20000 } } } }],
  });
  expect(stored.rows[0].definition.thresholds.hysteresis).toBeUndefined();
  await expect(page.getByTestId('key-policy-tenant-acme').getByTestId('key-origin-maxAttempts')).toHaveText(/^key\s*over 5 · task/);
  await page.reload();
  await expect(page.getByTestId('key-policy-tenant-acme').getByTestId('key-origin-baseDelayMs')).toHaveText('1000 · built-in');
  await expect(page.getByTestId('origin-thresholds.clearAfterMs')).toHaveText(/task\s*overrides the built-in default 120000/);
  await shoot(page, 'task-editor-key-policies');
  // The key policy card and the task's alert policy fields up close, at each width.
  const dir = process.env.SLUICE_SHOTS_DIR;
  if (dir) {
    for (const width of [1440, 1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await page.reload();
      await page.getByTestId('key-policy-tenant-acme').screenshot({ path: `${dir}/key-policy-card-${width}.png` });
      await page.getByLabel('Resolve after (ms)', { exact: true }).scrollIntoViewIfNeeded();
      await page.screenshot({ path: `${dir}/task-alert-policy-${width}.png` });
    }
  }
});

test('an operator gives a key its own timeout and alert policy, and the task key-wait lines; sources shown, stored as typed', async ({ page }) => {
  const db = e2eDb();
  const task = `e2e-keyto-${randomBytes(3).toString('hex')}`;
  const cur = await currentConfig(db);
  await applyConfig(
    db,
    SYSTEM_ACTOR,
    {
      ...cur.config,
      tasks: [...cur.config.tasks, { name: task, partitions: 1, timeoutMs: 9000, thresholds: { alertAfterMs: 45_000 }, groups: [{ name: 'tenant', limit: 2, keyPath: 'tenant' }] }],
    },
    { message: 'key timeout e2e' },
  );
  const op = await seedUser('operator');
  await signInViaApi(page.request, op);
  await page.goto(`/tasks/${task}`);

  // The task's key-wait lines: none until set (built-in), then the task's.
  await expect(page.getByTestId('origin-thresholds.keyWaitMs')).toHaveText(/built-in default\s*inherited/);
  await page.getByLabel('Key wait warning (ms)', { exact: true }).fill('60000');
  await page.getByLabel('Key wait critical (ms)', { exact: true }).fill('600000');
  await expect(page.getByTestId('origin-thresholds.keyWaitMs')).toHaveText(/task\s*overrides the built-in default none/);

  await page.getByRole('button', { name: 'Add key policy' }).click();
  await page.getByLabel('Policy key 1 of tenant').fill('acme');
  const card = page.getByTestId('key-policy-tenant-acme');
  // Blank key fields: the task's timeout and for-duration, the built-in clear and
  // hysteresis, the task's key-wait lines just typed.
  await expect(card.getByTestId('key-origin-timeoutMs')).toHaveText('9000 · task');
  await expect(card.getByTestId('key-origin-alertAfterMs')).toHaveText('45000 · task');
  await expect(card.getByTestId('key-origin-clearAfterMs')).toHaveText('120000 · built-in');
  await expect(card.getByTestId('key-origin-hysteresis')).toHaveText('0.1 · built-in');
  await expect(card.getByTestId('key-origin-waitWarning')).toHaveText('60000 · task');

  // Hostile input is refused naming the field; nothing can be reviewed while it stands.
  const timeout = card.getByLabel('Timeout (ms) for acme in tenant');
  await timeout.fill('-5');
  await expect(card.getByText('must be at least 1')).toBeVisible();
  await card.getByLabel('Hysteresis (0–0.9) for acme in tenant').fill('7');
  await expect(card.getByText('must be at most 0.9')).toBeVisible();
  await page.getByRole('button', { name: 'Review changes' }).click();
  await expect(page.getByRole('button', { name: /^Apply as version \d+$/ })).toHaveCount(0);

  await timeout.fill('1500');
  await card.getByLabel('Hysteresis (0–0.9) for acme in tenant').fill('0.3');
  await card.getByLabel('Alert after (ms) for acme in tenant').fill('0');
  await card.getByLabel('Resolve after (ms) for acme in tenant').fill('5000');
  await expect(card.getByTestId('key-origin-timeoutMs')).toHaveText(/^key\s*over 9000 · task\s*Use default$/);
  await expect(card.getByTestId('key-origin-alertAfterMs')).toHaveText(/^key\s*over 45000 · task/);
  // "Use default" hands the clear-duration back: blank, the built-in shown again.
  await card.getByRole('button', { name: 'Use the default for Resolve after (ms) of acme in tenant' }).click();
  await expect(card.getByLabel('Resolve after (ms) for acme in tenant')).toHaveValue('');
  await expect(card.getByTestId('key-origin-clearAfterMs')).toHaveText('120000 · built-in');

  await page.getByRole('button', { name: 'Review changes' }).click();
  const diff = page.getByRole('region', { name: `Changes to ${task}` }).first();
  await expect(diff).toContainText('Group "tenant" › key "acme" › timeout (ms)');
  await expect(diff).toContainText('Group "tenant" › key "acme" › alert after (ms)');
  await expect(diff).toContainText('Thresholds › key wait (ms)');
  await page.getByLabel('Change message').fill('e2e: acme times out sooner and alerts at once');
  await page.getByRole('button', { name: /^Apply as version \d+$/ }).click();
  await expect(page.getByText(/Applied as (config )?version \d+/)).toBeVisible();

  const stored = await db.query(`SELECT definition FROM task_runtime WHERE task = $1`, [task]);
  expect(stored.rows[0].definition.thresholds.keyWaitMs).toEqual({ warning: 60000, critical: 600000 });
  expect(stored.rows[0].definition.groups[0].keyPolicies).toEqual({ acme: { timeoutMs: 1500, alertAfterMs: 0, hysteresis: 0.3 } });
  const version = await db.query(`SELECT max(version)::int AS v FROM config_versions`);
  const latest = await currentConfig(db);
  expect(latest.version).toBe(version.rows[0].v);
  expect(latest.config.tasks.find((t) => t.name === task)!.groups[0]!.keyPolicies).toEqual({ acme: { timeoutMs: 1500, alertAfterMs: 0, hysteresis: 0.3 } });

  await page.reload();
  const again = page.getByTestId('key-policy-tenant-acme');
  await expect(again.getByLabel('Timeout (ms) for acme in tenant')).toHaveValue('1500');
  await expect(again.getByTestId('key-origin-timeoutMs')).toHaveText(/^key\s*over 9000 · task/);
  await expect(again.getByTestId('key-origin-clearAfterMs')).toHaveText('120000 · built-in');
  await shoot(page, 'task-editor-key-timeout');
});
