import { test, expect } from './support/fixtures';
import { e2eDb, signInViaApi, uniqueEmail } from './support/factories';
import { e2eEnv } from './support/e2e-env';

test('an admin creates a user in Settings → Users and the Audit page shows it', async ({ page }) => {
  const env = e2eEnv();
  await signInViaApi(page.request, { email: env.adminEmail, password: env.adminPassword });
  const email = uniqueEmail('created');

  await page.goto('/settings/users');
  const form = page.getByRole('form', { name: 'Create user' });
  await form.getByLabel('Email').fill(email);
  await form.getByLabel('Role').selectOption('operator');
  await form.getByRole('button', { name: 'Create user' }).click();

  await expect(page.getByText(`Created ${email} as operator.`)).toBeVisible();
  const generated = await page.getByLabel('Generated password').textContent();
  expect(generated).toMatch(/^[A-Za-z2-9]{20}$/);
  await expect(page.getByRole('cell', { name: email })).toBeVisible();

  const db = e2eDb();
  const user = await db.query(`SELECT id, role, active FROM users WHERE email = $1`, [email]);
  expect(user.rows).toEqual([{ id: expect.any(String), role: 'operator', active: true }]);
  const audit = await db.query(`SELECT actor_type, actor_label, action, target_type, after FROM audit_log WHERE target_id = $1`, [user.rows[0].id]);
  expect(audit.rows).toEqual([
    {
      actor_type: 'user',
      actor_label: env.adminEmail,
      action: 'user.create',
      target_type: 'user',
      after: { id: user.rows[0].id, email, role: 'operator', active: true },
    },
  ]);

  // The Audit page, filtered through the URL.
  await page.goto(`/audit?action=user.create&targetId=${user.rows[0].id}`);
  const rows = page.getByRole('row').filter({ hasText: 'user.create' });
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText(env.adminEmail);
  await rows.first().getByText('4 fields set').click();
  await expect(rows.first().getByRole('cell', { name: email })).toBeVisible();

  // The filter form writes the URL.
  await page.goto('/audit');
  await page.getByLabel('Actor').fill(env.adminEmail);
  await page.getByLabel('Action').fill('user.');
  await page.getByRole('button', { name: 'Apply' }).click();
  await expect(page).toHaveURL(/action=user\./);
  await expect(page.getByRole('row').filter({ hasText: email })).toHaveCount(1);
});
