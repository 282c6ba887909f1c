// From the Overview to one queued execution of the hot tenant in three clicks (task card →
// "Queued executions" → the newest row), and the page says what holds it: the tenant's key
// at its limit, 8/8 — checked against the database. Then the list's filters in the URL, a
// keyset page, and the key's link to its own list.
import { randomBytes } from 'node:crypto';
import { test, expect } from './support/fixtures';
import { e2eDb, signInViaApi } from './support/factories';
import { e2eEnv } from './support/e2e-env';
import { seedExecutions } from './support/executions-seed';

test.describe.configure({ timeout: 90_000 });

test('overview → queued execution of the hot tenant in 3 clicks, and why it waits: tenant=… 8/8', async ({ page }) => {
  const db = e2eDb();
  const seed = await seedExecutions(db, randomBytes(3).toString('hex'));
  const env = e2eEnv();
  await signInViaApi(page.request, { email: env.adminEmail, password: env.adminPassword });

  // Start on another task's charts when there is one (the order CI met the race in).
  const other = (await db.query<{ task: string }>(`SELECT task FROM task_runtime WHERE task <> $1 ORDER BY task LIMIT 1`, [seed.task])).rows[0]?.task;
  await page.goto(other ? `/?task=${encodeURIComponent(other)}` : '/');
  if (other) await expect(page.getByTestId('overview-queued-executions')).toHaveAttribute('href', new RegExp(`task=${other}`));
  // 1: the task's card
  // The picked task's data is held back 3 s: meanwhile the previous task's charts stay on
  // screen (loading), and their links already name the picked task.
  await page.route('**/api/trpc/metrics.overview**', async (route) => {
    await new Promise((r) => setTimeout(r, 3000));
    await route.continue().catch(() => {}); // the page may have moved on
  });
  await page.getByTestId(`task-card-${seed.task}`).click();
  await expect(page).toHaveURL(new RegExp(`task=${seed.task}`));
  await expect(page.getByTestId('overview-queued-executions')).toHaveAttribute('href', new RegExp(`task=${seed.task}&state=queued`), { timeout: 1500 });
  await page.unrouteAll({ behavior: 'ignoreErrors' });
  // 2: its queued executions
  await page.getByTestId('overview-queued-executions').click();
  await expect(page).toHaveURL(new RegExp(`/executions\\?task=${seed.task}&state=queued`));
  await expect(page.getByRole('heading', { name: 'Executions', level: 1 })).toBeVisible();
  const newest = seed.backlog[seed.backlog.length - 1]!;
  const rows = page.getByRole('table', { name: 'Executions' }).locator('tbody tr');
  await expect(rows).toHaveCount(seed.backlog.length);
  await expect(rows.first()).toHaveAttribute('data-testid', `execution-row-${newest}`);
  await expect(page.getByTestId('executions-count')).toHaveText(`${seed.backlog.length} matching`);
  // 3: the newest queued execution
  await rows.first().getByRole('link', { name: String(newest) }).click();
  await expect(page).toHaveURL(new RegExp(`/executions/${newest}$`));
  await expect(page.getByRole('heading', { name: `Execution ${newest}` })).toBeVisible();
  const why = page.getByTestId('why-waiting-text');
  await expect(why).toHaveText(`group key tenant=${seed.hotTenant} is full: 8/8`);

  // the database agrees: the execution is queued, and exactly 8 of the tenant's run
  const row = await db.query(`SELECT state FROM executions WHERE id = $1`, [newest]);
  expect(row.rows[0].state).toBe('queued');
  const r = await db.query(`SELECT count(*)::int AS n FROM executions WHERE task = $1 AND state = 'running' AND groups->>'tenant' = $2`, [seed.task, seed.hotTenant]);
  expect(r.rows[0].n).toBe(8);
  // the payload is shown as text, and the key links to what runs for it
  await expect(page.getByLabel('Payload')).toContainText(`"user129@${seed.hotTenant}.example"`);
  await page.getByRole('link', { name: `what runs for tenant=${seed.hotTenant}` }).click();
  await expect(page).toHaveURL(/state=running/);
  await expect(page.getByRole('table', { name: 'Executions' }).locator('tbody tr')).toHaveCount(8);
  await expect(page.getByTestId('executions-count')).toHaveText('8 matching (live counter)');
});

test('filters live in the URL; a payload match narrows the list; a bad filter says which field', async ({ page }) => {
  const db = e2eDb();
  const seed = await seedExecutions(db, randomBytes(3).toString('hex'));
  const env = e2eEnv();
  await signInViaApi(page.request, { email: env.adminEmail, password: env.adminPassword });

  await page.goto(`/executions?task=${seed.task}&group=tenant%3D${seed.hotTenant}&state=queued&order=oldest`);
  await expect(page.getByLabel('Group key')).toHaveValue(`tenant=${seed.hotTenant}`);
  await expect(page.getByLabel('Order')).toHaveValue('oldest');
  const rows = page.getByRole('table', { name: 'Executions' }).locator('tbody tr');
  await expect(rows).toHaveCount(30);
  await expect(rows.first()).toHaveAttribute('data-testid', `execution-row-${seed.backlog[0]}`);

  // the filter form: narrow to one payload value
  await page.getByText('More filters').click();
  await page.getByLabel('Payload (path=value)').fill(`to=user105@${seed.hotTenant}.example`);
  await page.getByRole('button', { name: 'Apply' }).click();
  await expect(page).toHaveURL(/payload=to%3Duser105/);
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toHaveAttribute('data-testid', `execution-row-${seed.backlog[5]}`);

  await page.goto(`/executions?state=sleeping&group=tenant`);
  const problem = page.getByRole('alert').filter({ hasText: 'must be' });
  await expect(problem).toContainText('state: must be one of: queued, scheduled, blocked');
  await expect(problem).toContainText('group: must be group=key');
});
