// The config editor in the browser: create a task through the form (inline errors from
// the shared schema), review the diff, apply with a message; an edit based on a stale
// version is refused and says so; history shows the diff and rolls back; a viewer sees
// the editor read-only; the YAML download needs a session. Every step is checked in
// the database too.
import { randomBytes } from 'node:crypto';
import { parse } from 'yaml';
import { test, expect } from './support/fixtures';
import { shoot } from './support/shots';
import { e2eDb, seedUser, signInViaApi, trpcMutation } from './support/factories';

const latestVersion = async () => (await e2eDb().query<{ v: number | null }>('SELECT max(version)::int AS v FROM config_versions')).rows[0]!.v;
const storedTask = async (name: string, version?: number) => {
  const r = await e2eDb().query<{ def: Record<string, unknown> | null }>(
    `SELECT jsonb_path_query_first(config, '$.tasks[*] ? (@.name == $n)', jsonb_build_object('n', $1::text)) AS def
     FROM config_versions WHERE version = coalesce($2, (SELECT max(version) FROM config_versions))`,
    [name, version ?? null],
  );
  return r.rows[0]?.def ?? null;
};

test('an operator creates a task in the form: inline errors, diff, message, new version', async ({ page }) => {
  const op = await seedUser('operator');
  await signInViaApi(page.request, op);
  const name = `e2e-create-${randomBytes(3).toString('hex')}`;

  await page.goto('/tasks/new');
  await page.getByLabel('Name', { exact: true }).fill(name);
  const concurrency = page.getByLabel('Concurrency', { exact: true });
  await concurrency.fill('0');
  await expect(concurrency).toHaveAttribute('aria-invalid', 'true');
  await expect(page.getByText('must be at least 1')).toBeVisible();
  await concurrency.fill('30');
  await expect(concurrency).not.toHaveAttribute('aria-invalid', 'true');

  await page.getByRole('button', { name: 'Add group' }).click();
  await page.getByLabel('Group name').fill('tenant');
  await page.getByLabel('Limit per key', { exact: true }).fill('20');
  await page.getByLabel('Key path', { exact: true }).fill('tenant..id');
  await expect(page.getByText('must be a dot path such as "tenant" or "customer.id"')).toBeVisible();
  await page.getByLabel('Key path', { exact: true }).fill('tenant');
  await page.getByRole('button', { name: 'Add override' }).click();
  await page.getByLabel('Override key 1 of tenant').fill('acme');
  await page.getByLabel('Limit for acme in tenant', { exact: true }).fill('50');

  await page.getByLabel('DLQ rate warning').fill('10');
  await page.getByLabel('DLQ rate critical').fill('5');
  await expect(page.getByText('warning must be below critical', { exact: true })).toBeVisible();
  await page.getByRole('button', { name: 'Review changes' }).click();
  await expect(page.getByText('1 field to fix before review')).toBeVisible();
  // A percentage is bounded at 100%, in the same wording as every other field.
  await page.getByLabel('DLQ rate critical').fill('150');
  await expect(page.getByText('must be at most 100%', { exact: true })).toBeVisible();
  await page.getByLabel('DLQ rate critical').fill('20');
  // The alert delay: empty is the default minute; text is refused; a number is stored.
  const alertAfter = page.getByLabel('Alert after (ms)');
  await expect(alertAfter).toHaveValue('');
  await alertAfter.fill('20 s');
  await expect(alertAfter).toHaveAttribute('aria-invalid', 'true');
  await expect(page.getByText('must be a number')).toBeVisible();
  await alertAfter.fill('20000');
  await expect(alertAfter).not.toHaveAttribute('aria-invalid', 'true');

  const before = await latestVersion();
  await page.getByRole('button', { name: 'Review changes' }).click();
  const diff = page.getByRole('region', { name: `Changes to ${name}` });
  await expect(diff.getByText('new task')).toBeVisible();
  await expect(diff.locator('tr[data-path="groups.tenant.overrides.acme"]')).toContainText('50');
  await expect(diff.locator('tr[data-path="thresholds.dlqRate.warning"]')).toContainText('0.1');
  await expect(diff.locator('tr[data-path="thresholds.alertAfterMs"]')).toContainText('20000');
  await page.getByLabel('Change message').fill('e2e: add a task from the form');
  await page.getByRole('button', { name: /^Apply as version \d+$/ }).click();

  await expect(page).toHaveURL(new RegExp(`/tasks/${name}\\?applied=\\d+$`));
  await expect(page.getByRole('heading', { level: 1 })).toContainText(name);
  const v = await latestVersion();
  expect(v).toBe((before ?? 0) + 1);
  const row = await e2eDb().query('SELECT author, message FROM config_versions WHERE version = $1', [v]);
  expect(row.rows[0]).toEqual({ author: op.email, message: 'e2e: add a task from the form' });
  expect(await storedTask(name)).toMatchObject({
    name,
    concurrency: 30,
    groups: [{ name: 'tenant', limit: 20, keyPath: 'tenant', overrides: { acme: 50 } }],
    thresholds: { dlqRate: { warning: 0.1, critical: 0.2 }, alertAfterMs: 20_000 },
  });
});

test('an edit based on a stale version is refused with a clear message and nothing is lost', async ({ page }) => {
  const op = await seedUser('operator', 'op-a');
  const other = await seedUser('operator', 'op-b');
  await signInViaApi(page.request, op);
  const name = `e2e-stale-${randomBytes(3).toString('hex')}`;
  const created = await trpcMutation(page.request, 'tasks.save', { mode: 'create', task: { name, concurrency: 10 }, basedOn: await latestVersion(), message: 'seed' });
  expect(created.status).toBe(200);

  await page.goto(`/tasks/${name}`);
  await page.getByLabel('Concurrency', { exact: true }).fill('12');

  // Meanwhile another operator applies a change to the same task.
  const { request } = await import('@playwright/test');
  const otherCtx = await request.newContext();
  await signInViaApi(otherCtx, other);
  const theirs = await trpcMutation(otherCtx, 'tasks.save', { mode: 'update', task: { name, concurrency: 99 }, basedOn: await latestVersion(), message: 'theirs' });
  expect(theirs.status).toBe(200);
  await otherCtx.dispose();
  const after = await latestVersion();

  await page.getByRole('button', { name: 'Review changes' }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'Not applied' })).toContainText(/config changed since version \d+: the latest is version \d+; reload and re-apply your change/);
  // The operator's draft is still there; the database has the other change only.
  await expect(page.getByLabel('Concurrency', { exact: true })).toHaveValue('12');
  expect(await latestVersion()).toBe(after);
  expect(await storedTask(name)).toMatchObject({ concurrency: 99 });

  await page.getByRole('button', { name: 'Load latest version' }).click();
  await expect(page.getByLabel('Concurrency', { exact: true })).toHaveValue('99');
});

test('history shows each version with its diff; a per-task revert restores that task and leaves another task’s later edit in place', async ({ page }) => {
  test.setTimeout(120_000);
  const op = await seedUser('operator');
  await signInViaApi(page.request, op);
  const name = `e2e-hist-${randomBytes(3).toString('hex')}`;
  const other = `e2e-other-${randomBytes(3).toString('hex')}`;
  const group = (limit: number) => [{ name: 'tenant', limit, keyPath: 'tenant' }];
  await trpcMutation(page.request, 'tasks.save', { mode: 'create', task: { name, groups: group(20) }, basedOn: await latestVersion(), message: 'h1' });
  const original = await latestVersion();
  await trpcMutation(page.request, 'tasks.save', { mode: 'update', task: { name, groups: group(5) }, basedOn: original, message: 'h2: tenant 5' });
  // Someone else edits another task after that.
  await trpcMutation(page.request, 'tasks.save', { mode: 'create', task: { name: other, groups: group(3) }, basedOn: await latestVersion(), message: 'other task' });
  await trpcMutation(page.request, 'tasks.save', { mode: 'update', task: { name: other, groups: group(9) }, basedOn: await latestVersion(), message: 'other: tenant 9' });
  const otherEdit = await latestVersion();

  await page.goto(`/tasks/${name}/history`);
  const newest = page.locator(`li[data-version="${original! + 1}"]`);
  await expect(newest).toContainText('h2: tenant 5');
  await expect(newest.locator('tr[data-path="groups.tenant.limit"]')).toContainText('20');
  await expect(newest.locator('tr[data-path="groups.tenant.limit"]')).toContainText('5');

  await page.getByRole('button', { name: `Revert ${name} to v${original}…` }).click();
  const review = page.getByRole('region', { name: `Revert ${name} to its definition in version ${original} (other tasks unchanged): what changes against the current version` });
  await expect(review.locator('tr[data-path="groups.tenant.limit"]').getByLabel('before: 5')).toBeVisible();
  await expect(review.locator('tr[data-path="groups.tenant.limit"]').getByLabel('after: 20')).toBeVisible();
  await expect(review).not.toContainText(other); // the other task is not in the diff
  await page.getByRole('button', { name: /^Revert \(new version \d+\)$/ }).click();
  await expect(page.getByText(`has ${name} as it was in version ${original}; other tasks are unchanged`)).toBeVisible();
  const v = await latestVersion();
  expect(v).toBe(otherEdit! + 1);
  expect(await storedTask(name, v!)).toEqual(await storedTask(name, original!));
  // The other task's later edit is still there.
  expect(await storedTask(other, v!)).toEqual(await storedTask(other, otherEdit!));
  expect((await storedTask(other, v!) as { groups: { limit: number }[] }).groups[0]!.limit).toBe(9);
  const audit = await e2eDb().query(`SELECT target_id, meta FROM audit_log WHERE action = 'task.revert' ORDER BY id DESC LIMIT 1`);
  expect(audit.rows[0]).toMatchObject({ target_id: name, meta: { version: v, revertedTo: original } });
  const kept = await e2eDb().query('SELECT count(*)::int AS n FROM config_versions WHERE version <= $1', [v]);
  expect(kept.rows[0].n).toBe(v);
  await shoot(page, 'task-history');
});

test('creating a task with a taken name says so at the name field, not as a concurrent edit', async ({ page }) => {
  const op = await seedUser('operator');
  await signInViaApi(page.request, op);
  const name = `e2e-taken-${randomBytes(3).toString('hex')}`;
  await trpcMutation(page.request, 'tasks.save', { mode: 'create', task: { name }, basedOn: await latestVersion(), message: 'first' });
  const before = await latestVersion();
  await page.goto('/tasks/new');
  await page.getByLabel('Name', { exact: true }).fill(name);
  await page.getByRole('button', { name: /Review/ }).first().click();
  await expect(page.getByText('a task with this name already exists')).toBeVisible();
  await expect(page.getByText(/Not applied:/)).toHaveCount(0);
  expect(await latestVersion()).toBe(before);
});

test('a viewer sees the editor read-only and cannot change a task even with a forged call', async ({ page }) => {
  const op = await seedUser('operator');
  await signInViaApi(page.request, op);
  const name = `e2e-ro-${randomBytes(3).toString('hex')}`;
  await trpcMutation(page.request, 'tasks.save', {
    mode: 'create',
    task: { name, groups: [{ name: 'tenant', limit: 3, keyPath: 'tenant', overrides: { acme: 4 } }] },
    basedOn: await latestVersion(),
    message: 'seed',
  });
  await page.context().clearCookies();

  const viewer = await seedUser('viewer');
  await signInViaApi(page.request, viewer);
  await page.goto(`/tasks/${name}`);
  await expect(page.getByText('Read-only: your role can view tasks but not change them.')).toBeVisible();
  await expect(page.getByLabel('Concurrency', { exact: true })).toBeDisabled();
  await expect(page.getByLabel('Limit for acme in tenant', { exact: true })).toBeDisabled();
  await expect(page.getByLabel('Limit for acme in tenant', { exact: true })).toHaveValue('4');
  await expect(page.getByRole('button', { name: /Review changes|Pause|Resume|Delete|Add group|Add override/ })).toHaveCount(0);

  await page.goto('/tasks');
  await expect(page.locator(`tr[data-task="${name}"]`)).toBeVisible();
  await expect(page.getByRole('link', { name: 'New task' })).toHaveCount(0);

  const forged = await trpcMutation(page.request, 'tasks.setPaused', { task: name, paused: true });
  expect(forged.status).toBe(403);
  expect(await storedTask(name)).toMatchObject({ paused: false });
});

test('the current config downloads as YAML that parses back to the stored version; signed out gets 401', async ({ page }) => {
  const viewer = await seedUser('viewer');
  await signInViaApi(page.request, viewer);
  const res = await page.request.get('/api/config/export');
  expect(res.status()).toBe(200);
  const v = await latestVersion();
  expect(res.headers()['content-disposition']).toBe(`attachment; filename="sluice-config-v${v}.yaml"`);
  const doc = parse(await res.text()) as { tasks: { name: string }[] };
  const stored = await e2eDb().query<{ names: string[] }>(
    `SELECT array(SELECT t->>'name' FROM jsonb_array_elements(config->'tasks') t ORDER BY t->>'name' COLLATE "C") AS names FROM config_versions WHERE version = $1`,
    [v],
  );
  expect(doc.tasks.map((t) => t.name)).toEqual(stored.rows[0]!.names);

  await page.context().clearCookies();
  const anon = await page.request.get('/api/config/export');
  expect(anon.status()).toBe(401);
});
