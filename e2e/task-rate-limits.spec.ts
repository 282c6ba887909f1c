// Limits (issue #19): an operator sets rate limits in the task editor — the task's own rate
// and a group's rate per key with a per-key override — validated inline by the shared
// schema, shown in the diff, stored in a new config version and live in task_runtime (what
// every coordinator's claim reads). Page and database both checked.
import { randomBytes } from 'node:crypto';
import { test, expect } from './support/fixtures';
import { shoot } from './support/shots';
import { e2eDb, seedUser, signInViaApi, trpcMutation } from './support/factories';

const latestVersion = async () => (await e2eDb().query<{ v: number | null }>('SELECT max(version)::int AS v FROM config_versions')).rows[0]!.v;

test('an operator sets a task rate and a per-key rate with an override; the diff shows them, the version and the claim state store them', async ({ page }) => {
  test.setTimeout(120_000);
  const op = await seedUser('operator');
  await signInViaApi(page.request, op);
  const name = `e2e-rate-${randomBytes(3).toString('hex')}`;
  const created = await trpcMutation(page.request, 'tasks.save', {
    mode: 'create',
    task: { name, partitions: 1, groups: [{ name: 'tenant', limit: 20, keyPath: 'tenant' }] },
    basedOn: await latestVersion(),
    message: 'seed',
  });
  expect(created.status).toBe(200);

  await page.goto(`/tasks/${name}`);
  // the task's own rate
  const section = page.getByRole('region', { name: 'Rate limit' });
  await section.getByTestId('task-rate-toggle').check();
  const limit = section.getByLabel('Task rate limit');
  const per = section.getByLabel('Task rate per (ms)');
  await limit.fill('100');
  await per.fill('0');
  await expect(per).toHaveAttribute('aria-invalid', 'true');
  await expect(section.getByText('must be at least 1')).toBeVisible();
  await per.fill('60000');
  await expect(section.getByTestId('task-rate-rule')).toHaveText('At most 100 start in any 60 s; steady 100/min.');
  await section.getByLabel('Cost path').fill('weight');

  // the tenant group's rate per key, and acme's override
  const group = page.getByRole('group', { name: 'Group tenant' });
  await group.getByLabel('Rate limit per key of tenant').check();
  await group.getByLabel('Rate limit', { exact: true }).fill('50');
  await group.getByLabel('Rate per (ms)').fill('1000');
  await group.getByLabel('Rate burst').fill('5');
  await group.getByRole('button', { name: 'Add rate override' }).click();
  await group.getByLabel('Rate override key 1 of tenant').fill('acme');
  await group.getByLabel('Rate limit for acme in tenant').fill('-3');
  await expect(group.getByText('must be at least 1')).toBeVisible();
  await group.getByLabel('Rate limit for acme in tenant').fill('200');

  await page.getByRole('button', { name: 'Review changes' }).click();
  const diff = page.getByRole('region', { name: `Changes to ${name}`, exact: true });
  await expect(diff).toContainText('Group "tenant" › rate › overrides › acme › limit');
  await expect(diff).toContainText('Rate › per');
  await expect(diff).toContainText('200');
  await page.getByLabel('Change message').fill('e2e: rate limits');
  await page.getByRole('button', { name: /^Apply as version \d+$/ }).click();
  await expect(page.getByText(/Applied as config version \d+\./)).toBeVisible();

  const stored = await e2eDb().query<{ t: Record<string, unknown> }>(
    `SELECT jsonb_path_query_first(config, '$.tasks[*] ? (@.name == $n)', jsonb_build_object('n', $1::text)) AS t
     FROM config_versions WHERE version = (SELECT max(version) FROM config_versions)`,
    [name],
  );
  const t = stored.rows[0]!.t as { rate: unknown; rateCostPath: unknown; groups: { rate: unknown }[] };
  expect(t.rate).toEqual({ limit: 100, per: 60_000, burst: 0 });
  expect(t.rateCostPath).toBe('weight');
  expect(t.groups[0]!.rate).toEqual({ limit: 50, per: 1000, burst: 5, overrides: { acme: { limit: 200 } } });
  // what the claim reads, live
  const live = await e2eDb().query(`SELECT rate, groups -> 'tenant' -> 'rate' AS grate FROM task_runtime WHERE task = $1`, [name]);
  expect(live.rows[0]).toEqual({
    rate: { task: { limit: 100, per: 60_000, burst: 0 }, cost: ['weight'] },
    grate: { limit: 50, per: 1000, burst: 5, overrides: { acme: { limit: 200 } } },
  });
  await page.reload();
  await expect(page.getByRole('region', { name: 'Rate limit' }).getByLabel('Task rate limit')).toHaveValue('100');
  await expect(page.getByRole('group', { name: 'Group tenant' }).getByLabel('Rate limit for acme in tenant')).toHaveValue('200');
  await shoot(page, 'task-rate-limits');
});
