import { test, expect } from './support/fixtures';
import { e2eDb, seedUser, signInViaApi, trpcMutation, uniqueEmail } from './support/factories';

test('a viewer sees users and tokens read-only, with no mutation controls', async ({ page }) => {
  const viewer = await seedUser('viewer');
  await signInViaApi(page.request, viewer);

  await page.goto('/settings/users');
  await expect(page.getByRole('heading', { name: /^Users \(\d+\)$/ })).toBeVisible();
  await expect(page.getByRole('main').getByRole('cell', { name: `${viewer.email} (you)` })).toBeVisible();
  await expect(page.getByText('Read-only: only admins can change users.')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Create user' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: /Deactivate|Reactivate|Reset password/ })).toHaveCount(0);
  await expect(page.getByRole('combobox')).toHaveCount(0);

  await page.goto('/settings/tokens');
  await expect(page.getByText('Read-only: only admins can create or revoke tokens.')).toBeVisible();
  await expect(page.getByRole('button', { name: /Create token|Revoke/ })).toHaveCount(0);
});

test("a forged viewer mutation is refused by the server with 403 and changes nothing", async ({ page }) => {
  const viewer = await seedUser('viewer');
  await signInViaApi(page.request, viewer);
  const target = uniqueEmail('forged');

  // The viewer's own session cookie, sent straight to the tRPC endpoint.
  const r = await trpcMutation(page.request, 'users.create', { email: target, role: 'admin', password: 'forged-password-1' });
  expect(r.status).toBe(403);
  expect(r.body.error?.json.data.code).toBe('FORBIDDEN');
  expect(r.body.error?.json.message).toBe('This needs the admin role; you are signed in as viewer.');

  const promote = await trpcMutation(page.request, 'users.update', { id: viewer.id, role: 'admin' });
  expect(promote.status).toBe(403);

  const db = e2eDb();
  expect((await db.query(`SELECT 1 FROM users WHERE lower(email) = lower($1)`, [target])).rowCount).toBe(0);
  expect((await db.query(`SELECT role FROM users WHERE id = $1`, [viewer.id])).rows[0].role).toBe('viewer');

  // And without any session: 401.
  const anon = await page.request.post('/api/trpc/users.create', {
    data: { json: { email: target, role: 'admin' } },
    headers: { cookie: '' },
  });
  expect([401, 403]).toContain(anon.status());
});
