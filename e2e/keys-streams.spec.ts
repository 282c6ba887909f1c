// The Keys and Streams views in the browser: from the hot-key alert to the keys view (the
// alert's key pinned, every key's running / limit / queued, most queued first), "Add
// override" opens the task editor prefilled with the key, the operator sets the limit and
// applies it — checked on the page and in the stored config version and task_runtime;
// the Streams view shows the retrying head; a viewer gets no override action.
import { randomBytes } from 'node:crypto';
import { test, expect } from './support/fixtures';
import { shoot } from './support/shots';
import { e2eDb, seedUser, signInViaApi } from './support/factories';
import { seedKeys } from './support/keys-seed';

// Seeding runs the engine's enqueue, claim and finish and an alert evaluation: seconds on a busy machine.
test.describe.configure({ timeout: 180_000 });

test('from the hot-key alert to the keys view, then an override added from it and applied', async ({ page }) => {
  const seed = await seedKeys(e2eDb(), randomBytes(3).toString('hex'));
  const op = await seedUser('operator', 'keys-op');
  await signInViaApi(page.request, op);

  await page.goto(`/alerts?task=${seed.task}&rule=hotKey`);
  const detail = page.getByTestId('alert-detail');
  await expect(detail).toContainText(`${seed.task} tenant=acme`, { timeout: 30_000 });
  await detail.getByTestId('alert-remedies').getByRole('link', { name: 'Open the keys view →' }).click();

  await expect(page).toHaveURL(`/tasks/${seed.task}/keys?group=tenant&key=acme`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(`Keys of ${seed.task}`);
  const table = page.getByTestId('keys-table');
  const pinned = table.getByTestId('key-focus');
  await expect(pinned).toHaveAttribute('data-key', 'acme');
  await expect(pinned).toContainText('3 / 3');
  await expect(pinned).toContainText('57');
  await expect(pinned.getByRole('link', { name: 'Executions of tenant=acme' })).toHaveAttribute('href', `/executions?task=${seed.task}&group=tenant%3Dacme`);
  // Below it the other keys, most queued first: initech's 3 (its stream's retrying head
  // and the 2 blocked behind it), then globex's 2, running under its override.
  const rows = table.getByTestId('key-row');
  await expect(rows).toHaveCount(2);
  await expect(rows.nth(0)).toHaveAttribute('data-key', 'initech');
  await expect(rows.nth(0)).toContainText('0 / 3');
  await expect(rows.nth(1)).toHaveAttribute('data-key', 'globex');
  await expect(rows.nth(1)).toContainText('4 / 4');
  await expect(rows.nth(1)).toContainText('override');
  await expect(page.getByTestId('keys-summary')).toContainText('3 keys with work');

  await pinned.getByRole('link', { name: 'Add override for tenant=acme' }).click();
  await expect(page).toHaveURL(`/tasks/${seed.task}?override=tenant%3Dacme#sec-groups`);
  await expect(page.getByTestId('override-prefill')).toContainText('tenant=acme');
  const row = page.getByTestId('override-highlight');
  await expect(row.getByLabel(/^Override key \d+ of tenant$/)).toHaveValue('acme');
  const limit = page.getByLabel('Limit for acme in tenant', { exact: true });
  await expect(limit).toBeFocused();
  await expect(limit).toHaveValue('3');
  await limit.fill('10');
  await page.getByRole('button', { name: 'Review changes' }).click();
  const diff = page.getByRole('region', { name: `Changes to ${seed.task}` });
  await expect(diff.locator('tr[data-path="groups.tenant.overrides.acme"]')).toContainText('10');
  await page.getByLabel('Change message').fill('e2e: acme gets 10 slots');
  await page.getByRole('button', { name: /^Apply as version \d+$/ }).click();
  await expect(page.getByText(/Applied as config version \d+/)).toBeVisible();

  const stored = await e2eDb().query<{ version: number; author: string; message: string; groups: unknown }>(
    `SELECT version::int, author, message, jsonb_path_query_first(config, '$.tasks[*] ? (@.name == $n).groups', jsonb_build_object('n', $1::text)) AS groups
     FROM config_versions ORDER BY version DESC LIMIT 1`,
    [seed.task],
  );
  expect(stored.rows[0]).toMatchObject({ author: op.email, message: 'e2e: acme gets 10 slots', groups: [expect.objectContaining({ name: 'tenant', limit: 3, overrides: { globex: 4, acme: 10 } })] });
  const rt = await e2eDb().query(`SELECT config_version::int AS v, groups FROM task_runtime WHERE task = $1`, [seed.task]);
  expect(rt.rows[0]).toEqual({ v: stored.rows[0]!.version, groups: { tenant: { limit: 3, overrides: { globex: 4, acme: 10 } } } });

  // The keys view now shows acme under its override.
  await page.goto(`/tasks/${seed.task}/keys?group=tenant&key=acme`);
  await expect(page.getByTestId('keys-table').getByTestId('key-focus')).toContainText('3 / 10');
  await expect(page.getByTestId('keys-table').getByTestId('key-focus')).toContainText('override');
});

test('the streams view shows the retrying head; a viewer reads both views without override actions', async ({ page }) => {
  test.setTimeout(120_000);
  const seed = await seedKeys(e2eDb(), randomBytes(3).toString('hex'));
  const viewer = await seedUser('viewer', 'keys-viewer');
  await signInViaApi(page.request, viewer);

  await page.goto(`/tasks/${seed.task}`);
  await page.getByRole('link', { name: 'Streams', exact: true }).click();
  await expect(page).toHaveURL(`/tasks/${seed.task}/streams`);
  const stream = page.getByTestId('streams-table').getByTestId('stream-row');
  await expect(stream).toHaveCount(1);
  await expect(stream).toHaveAttribute('data-stream', 'order-1');
  await expect(stream).toContainText('retry scheduled');
  await expect(stream).toContainText('SMTP 451: try again later');
  await expect(stream.getByRole('link', { name: `Head execution ${seed.retryingHead} of stream order-1` })).toHaveAttribute('href', `/executions/${seed.retryingHead}`);
  await expect(stream.locator('time')).toHaveAttribute('datetime', seed.retryAt.toISOString());
  const cells = stream.locator('td');
  await expect(cells.nth(4)).toHaveText('1'); // attempt
  await expect(cells.nth(6)).toHaveText('2'); // behind the head
  await shoot(page, 'streams');

  await page.getByRole('link', { name: 'Keys', exact: true }).click();
  await expect(page.getByTestId('keys-table').getByTestId('key-row').first()).toHaveAttribute('data-key', 'acme');
  await expect(page.getByRole('link', { name: /^Add override/ })).toHaveCount(0);
  await expect(page.getByRole('link', { name: 'Executions of tenant=acme' })).toBeVisible();
});
