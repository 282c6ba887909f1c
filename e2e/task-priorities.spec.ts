// Limits (issue #19): an operator sets a task's priorities in the task editor — the
// default priority and the aging parameter, validated inline by the shared schema, shown
// in the diff, stored in a new config version — and an execution enqueued over REST
// without a priority gets the new default. Page and database both checked.
import { randomBytes } from 'node:crypto';
import { test, expect } from './support/fixtures';
import { shoot } from './support/shots';
import { e2eDb, seedUser, signInViaApi, trpcMutation } from './support/factories';
import { createToken } from '../server/services/tokens';
import { SYSTEM_ACTOR } from '../server/db/audit';

const latestVersion = async () => (await e2eDb().query<{ v: number | null }>('SELECT max(version)::int AS v FROM config_versions')).rows[0]!.v;

test('an operator sets default priority and aging; the diff shows them, the version stores them, enqueue uses them', async ({ page }) => {
  test.setTimeout(120_000);
  const op = await seedUser('operator');
  await signInViaApi(page.request, op);
  const name = `e2e-prio-${randomBytes(3).toString('hex')}`;
  const created = await trpcMutation(page.request, 'tasks.save', { mode: 'create', task: { name, partitions: 1 }, basedOn: await latestVersion(), message: 'seed' });
  expect(created.status).toBe(200);

  await page.goto(`/tasks/${name}`);
  const section = page.getByRole('region', { name: 'Priorities' });
  const def = section.getByLabel('Default priority');
  const aging = section.getByLabel('Aging (ms per level)');
  await expect(def).toHaveValue('0');
  await expect(aging).toHaveValue('60000');
  await expect(section.getByTestId('priority-rule')).toContainText('passed by priority-5 work for at most 5 min');

  await def.fill('1001');
  await expect(def).toHaveAttribute('aria-invalid', 'true');
  await expect(section.getByText('must be at most 1000')).toBeVisible();
  await def.fill('5');
  await aging.fill('0');
  await expect(section.getByText('must be at least 1')).toBeVisible();
  await aging.fill('2000');
  await expect(aging).not.toHaveAttribute('aria-invalid', 'true');
  await expect(section.getByTestId('priority-rule')).toContainText('for at most 10 s');
  await page.getByRole('button', { name: 'Review changes' }).click();
  const diff = page.getByRole('region', { name: `Changes to ${name}` });
  await expect(diff.locator('tr[data-path="priority.default"]')).toContainText('5');
  await expect(diff.locator('tr[data-path="priority.agingMs"]')).toContainText('2000');
  await page.getByLabel('Change message').fill('e2e: priorities');
  await page.getByRole('button', { name: /^Apply as version \d+$/ }).click();
  await expect(page.getByText(/Applied as config version \d+\./)).toBeVisible();

  const stored = await e2eDb().query<{ p: unknown; live: unknown }>(
    `SELECT jsonb_path_query_first(config, '$.tasks[*] ? (@.name == $n)', jsonb_build_object('n', $1::text)) -> 'priority' AS p,
            (SELECT definition -> 'priority' FROM task_runtime WHERE task = $1) AS live
     FROM config_versions WHERE version = (SELECT max(version) FROM config_versions)`,
    [name],
  );
  expect(stored.rows[0]).toEqual({ p: { default: 5, agingMs: 2000 }, live: { default: 5, agingMs: 2000 } });
  await page.reload();
  await expect(page.getByRole('region', { name: 'Priorities' }).getByLabel('Default priority')).toHaveValue('5');
  await shoot(page, 'task-priorities');

  // Live at once: the next enqueue without a priority gets the new default and its lead.
  const { token } = await createToken(e2eDb(), SYSTEM_ACTOR, { name: `prio-${name}`, role: 'producer' });
  const res = await page.request.post(`/api/v1/tasks/${name}/executions`, { data: { payload: {} }, headers: { authorization: `Bearer ${token}` } });
  expect(res.status()).toBe(202);
  const id = (await res.json()).executions[0].id as number;
  const row = await e2eDb().query('SELECT priority, priority_lead_ms::int AS lead FROM executions WHERE id = $1', [id]);
  expect(row.rows[0]).toEqual({ priority: 5, lead: 10_000 });
});
