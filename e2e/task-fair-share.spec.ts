// Limits (issue #19): an operator turns on weighted fair share in the task editor — the
// claim order, the group whose keys share the task, and a key's weight — validated inline
// (the field named), shown in the diff, stored in a new config version and in what the
// claim reads (task_runtime.groups). Page and database both checked.
import { randomBytes } from 'node:crypto';
import { test, expect } from './support/fixtures';
import { e2eDb, seedUser, signInViaApi, trpcMutation } from './support/factories';

const latestVersion = async () => (await e2eDb().query<{ v: number | null }>('SELECT max(version)::int AS v FROM config_versions')).rows[0]!.v;

test('an operator sets fair share with acme weight 3; the diff shows it, the version and the claim store it', async ({ page }) => {
  test.setTimeout(120_000);
  const op = await seedUser('operator');
  await signInViaApi(page.request, op);
  const name = `e2e-fair-${randomBytes(3).toString('hex')}`;
  const created = await trpcMutation(page.request, 'tasks.save', {
    mode: 'create',
    task: { name, partitions: 1, concurrency: 20, groups: [{ name: 'tenant', limit: 20, keyPath: 'tenant' }] },
    basedOn: await latestVersion(),
    message: 'seed',
  });
  expect(created.status).toBe(200);

  await page.goto(`/tasks/${name}`);
  const section = page.getByRole('region', { name: 'Claim order' });
  const order = section.getByLabel('Order', { exact: true });
  const weights = section.getByLabel('Weights');
  await expect(order).toHaveValue('fifo');
  await expect(weights).toBeDisabled();
  await expect(section.getByTestId('fair-share-rule')).toContainText('Claim order alone');

  await order.selectOption('fair');
  await weights.fill('acme=0');
  await expect(section.getByText('acme: must be at least 1')).toBeVisible();
  await weights.fill('acme');
  await expect(section.getByText('write key=weight pairs separated by commas, each key once ("acme")')).toBeVisible();
  await weights.fill('acme=3');
  await expect(section.getByText(/write key=weight|must be at least/)).toHaveCount(0);
  await expect(section.getByTestId('fair-share-rule')).toContainText('acme gets 3× the share of a key of weight 1');

  await page.getByRole('button', { name: 'Review changes' }).click();
  const diff = page.getByRole('region', { name: `Changes to ${name}` });
  await expect(diff.locator('tr[data-path="order"]')).toContainText('fair');
  await expect(diff.locator('tr[data-path="groups.tenant.weights"], tr[data-path="groups.tenant.weights.acme"]').first()).toContainText('3');
  await page.getByLabel('Change message').fill('e2e: fair share');
  await page.getByRole('button', { name: /^Apply as version \d+$/ }).click();
  await expect(page.getByText(/Applied as config version \d+\./)).toBeVisible();

  const stored = await e2eDb().query<{ t: { order?: string; groups: { weights?: unknown }[] }; live: unknown }>(
    `SELECT jsonb_path_query_first(config, '$.tasks[*] ? (@.name == $n)', jsonb_build_object('n', $1::text)) AS t,
            (SELECT groups FROM task_runtime WHERE task = $1) AS live
     FROM config_versions WHERE version = (SELECT max(version) FROM config_versions)`,
    [name],
  );
  expect(stored.rows[0]!.t.order).toBe('fair');
  expect(stored.rows[0]!.t.groups[0]!.weights).toEqual({ acme: 3 });
  expect(stored.rows[0]!.live).toEqual({ tenant: { limit: 20, overrides: {}, weights: { acme: 3 }, fair: true } });
  await page.reload();
  await expect(page.getByRole('region', { name: 'Claim order' }).getByLabel('Weights')).toHaveValue('acme=3');
});
