import { test, expect } from './support/fixtures';
import { e2eDb, seedUser } from './support/factories';

test('an operator signs in with the form and lands on the console', async ({ page }) => {
  const op = await seedUser('operator');
  await page.goto('/settings/users');
  await expect(page).toHaveURL(/\/login$/);
  await page.getByLabel('Email').fill(op.email);
  await page.getByLabel('Password').fill(op.password);
  await page.getByRole('button', { name: 'Sign in' }).click();

  await expect(page.getByRole('heading', { level: 1, name: 'Overview' })).toBeVisible();
  await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Audit' })).toBeVisible();
  await expect(page.getByRole('complementary').getByText(op.email)).toBeVisible();

  const cookies = await page.context().cookies();
  const session = cookies.find((c) => c.name === 'sluice_session');
  expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
  const rows = await e2eDb().query(`SELECT count(*)::int AS n FROM sessions WHERE user_id = $1`, [op.id]);
  expect(rows.rows[0].n).toBe(1);
});

test('a wrong password is refused with a clear message and no session', async ({ page }) => {
  const op = await seedUser('viewer');
  await page.goto('/login');
  await page.getByLabel('Email').fill(op.email);
  await page.getByLabel('Password').fill('not-the-password');
  await page.getByRole('button', { name: 'Sign in' }).click();

  await expect(page.getByRole('main').getByRole('alert')).toHaveText('Incorrect email or password.');
  await expect(page).toHaveURL(/\/login$/);
  expect((await page.context().cookies()).some((c) => c.name === 'sluice_session')).toBe(false);
  const rows = await e2eDb().query(`SELECT count(*)::int AS n FROM sessions WHERE user_id = $1`, [op.id]);
  expect(rows.rows[0].n).toBe(0);
});
