import { test, expect } from './support/fixtures';
import { e2eDb, seedUser, trpcMutation } from './support/factories';

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

test("the address a sign-in is throttled and recorded under is the connection's, not a header the client sent", async ({ request }) => {
  const op = await seedUser('viewer', 'spoof');
  const spoofed = { 'x-forwarded-for': '203.0.113.77', 'x-real-ip': '203.0.113.78', 'x-sluice-peer-address': '203.0.113.79' };
  const before = await e2eDb().query<{ key: string; failures: number }>(`SELECT key, failures FROM login_throttle WHERE key LIKE 'ip:%'`);
  const failuresBefore = new Map(before.rows.map((r) => [r.key, r.failures]));
  try {
    // A failure counts against the connection's address: a client rotating X-Forwarded-For
    // (or sending the server's own header) cannot spread failures over made-up addresses.
    const bad = await trpcMutation(request, 'auth.signIn', { email: op.email, password: 'not-the-password' }, spoofed);
    expect(bad.status).toBe(401);
    const ip = await e2eDb().query<{ key: string; failures: number }>(`SELECT key, failures FROM login_throttle WHERE key LIKE 'ip:%' ORDER BY key`);
    expect(ip.rows.map((r) => r.key)).not.toEqual(expect.arrayContaining([expect.stringContaining('203.0.113.')]));
    const mine = ip.rows.find((r) => r.key === 'ip:127.0.0.1');
    expect(mine?.failures).toBe((failuresBefore.get('ip:127.0.0.1') ?? 0) + 1);

    // A success records the same address on the session and in the audit entry.
    const ok = await trpcMutation(request, 'auth.signIn', { email: op.email, password: op.password }, spoofed);
    expect(ok.status).toBe(200);
    const session = await e2eDb().query(`SELECT ip FROM sessions WHERE user_id = $1`, [op.id]);
    expect(session.rows).toEqual([{ ip: '127.0.0.1' }]);
    const audit = await e2eDb().query(`SELECT meta->>'ip' AS ip FROM audit_log WHERE action = 'auth.sign_in' AND actor_label = $1`, [op.email]);
    expect(audit.rows).toEqual([{ ip: '127.0.0.1' }]);
  } finally {
    // Leave the shared loopback address's failure count as it was for the specs after this one.
    await e2eDb().query(`UPDATE login_throttle SET failures = greatest(failures - 1, 0) WHERE key = 'ip:127.0.0.1'`);
  }
});
