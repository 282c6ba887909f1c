// Limits (issue #19): the Keys view shows each key's rate (its limit, override applied, its
// next slot from rate_state, held or not) and its fair share (weight, running ÷ weight) for a
// task sharing its tenant group fairly. The counters and the GCRA state are written straight
// into the database (no coordinator), then the page is checked against them.
import { randomBytes } from 'node:crypto';
import { test, expect } from './support/fixtures';
import { e2eDb, seedUser, signInViaApi, trpcMutation } from './support/factories';

const latestVersion = async () => (await e2eDb().query<{ v: number | null }>('SELECT max(version)::int AS v FROM config_versions')).rows[0]!.v;

test('the Keys view shows each key\'s rate with its next slot and its fair share by weight', async ({ page }) => {
  test.setTimeout(120_000);
  const op = await seedUser('operator');
  await signInViaApi(page.request, op);
  const name = `e2e-keyrate-${randomBytes(3).toString('hex')}`;
  const created = await trpcMutation(page.request, 'tasks.save', {
    mode: 'create',
    task: {
      name,
      partitions: 1,
      concurrency: 20,
      order: 'fair',
      groups: [{ name: 'tenant', limit: 20, keyPath: 'tenant', weights: { acme: 3 }, rate: { limit: 50, per: 1000, burst: 5, overrides: { acme: { limit: 100 } } } }],
    },
    basedOn: await latestVersion(),
    message: 'seed',
  });
  expect(created.status).toBe(200);
  const db = e2eDb();
  await db.query(
    `INSERT INTO group_slots (task, group_name, group_key, in_flight, queued) VALUES ($1, 'tenant', 'acme', 6, 40), ($1, 'tenant', 'beta', 2, 10)`,
    [name],
  );
  // acme: its next slot 60 s away (tat = now + burst × T + 60 s, T = 10 ms under its override); beta: no state (full)
  await db.query(
    `INSERT INTO rate_state (task, group_name, group_key, tat_ms) VALUES ($1, 'tenant', 'acme', extract(epoch FROM clock_timestamp()) * 1000 + 5 * 10 + 60000)`,
    [name],
  );

  await page.goto(`/tasks/${name}/keys`);
  await expect(page.getByTestId('keys-summary')).toContainText('rate 50/s, burst 5 per key');
  await expect(page.getByTestId('keys-summary')).toContainText('shared fairly by weight');
  const table = page.getByTestId('keys-table');
  await expect(table.getByRole('columnheader', { name: 'Rate' })).toBeVisible();
  await expect(table.getByRole('columnheader', { name: 'Fair share' })).toBeVisible();
  const acme = table.locator('[data-testid="key-row"][data-key="acme"]');
  const beta = table.locator('[data-testid="key-row"][data-key="beta"]');
  await expect(acme.getByTestId('key-rate')).toContainText('100/s, burst 5');
  await expect(acme.getByTestId('key-next-slot')).toHaveText(/^held: next slot in (5\d|60)\.\d s$/);
  await expect(acme.getByTestId('key-fair')).toContainText('weight 3');
  await expect(acme.getByTestId('key-fair')).toContainText('2 running per weight');
  await expect(beta.getByTestId('key-rate')).toContainText('50/s, burst 5');
  await expect(beta.getByTestId('key-next-slot')).toHaveText('next slot now');
  await expect(beta.getByTestId('key-fair')).toContainText('weight 1');
  await expect(beta.getByTestId('key-fair')).toContainText('2 running per weight');

  // the database the page read: acme held by its rate, beta with no rate state
  const st = await db.query<{ k: string; ahead: number }>(
    `SELECT group_key AS k, tat_ms - extract(epoch FROM clock_timestamp()) * 1000 AS ahead FROM rate_state WHERE task = $1 ORDER BY 1`,
    [name],
  );
  expect(st.rows.map((r) => r.k)).toEqual(['acme']);
  expect(Number(st.rows[0]!.ahead)).toBeGreaterThan(5 * 10);
  const live = await db.query<{ g: unknown }>(`SELECT groups AS g FROM task_runtime WHERE task = $1`, [name]);
  expect(live.rows[0]!.g).toMatchObject({ tenant: { fair: true, weights: { acme: 3 }, rate: { limit: 50, per: 1000, burst: 5 } } });

  // phones: the same facts on the cards
  await page.setViewportSize({ width: 390, height: 844 });
  const card = page.getByTestId('keys-cards').locator('[data-key="acme"]');
  await expect(card.getByTestId('key-rate')).toContainText('100/s, burst 5');
  await expect(card.getByTestId('key-fair')).toContainText('weight 3');
});
