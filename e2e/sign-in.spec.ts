import { test, expect } from './support/fixtures';
import { e2eDb, seedUser, signInViaApi, trpcMutation } from './support/factories';

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
  // A failure counts against the connection's address: a client rotating X-Forwarded-For
  // (or sending the server's own header) cannot spread failures over made-up addresses.
  const bad = await trpcMutation(request, 'auth.signIn', { email: op.email, password: 'not-the-password' }, spoofed);
  expect(bad.status).toBe(401);
  const pair = await e2eDb().query<{ key: string; failures: number }>(`SELECT key, failures FROM login_throttle WHERE key LIKE 'pair:%' AND key LIKE $1`, [
    `%${op.email.toLowerCase()}%`,
  ]);
  expect(pair.rows).toEqual([{ key: `pair:${JSON.stringify([op.email.toLowerCase(), '127.0.0.1'])}`, failures: 1 }]);
  const spoofedRows = await e2eDb().query(`SELECT key FROM login_throttle WHERE key LIKE '%203.0.113.%'`);
  expect(spoofedRows.rowCount).toBe(0);
  const failed = await e2eDb().query(`SELECT meta->>'ip' AS ip FROM audit_log WHERE action = 'auth.sign_in_failed' AND meta->>'email' = $1`, [op.email]);
  expect(failed.rows).toEqual([{ ip: '127.0.0.1' }]);

  // A success records the same address on the session and in the audit entry, and gives
  // the attempt back (the shared loopback address's count is as it was).
  const ok = await trpcMutation(request, 'auth.signIn', { email: op.email, password: op.password }, spoofed);
  expect(ok.status).toBe(200);
  const session = await e2eDb().query(`SELECT ip FROM sessions WHERE user_id = $1`, [op.id]);
  expect(session.rows).toEqual([{ ip: '127.0.0.1' }]);
  const audit = await e2eDb().query(`SELECT meta->>'ip' AS ip FROM audit_log WHERE action = 'auth.sign_in' AND actor_label = $1`, [op.email]);
  expect(audit.rows).toEqual([{ ip: '127.0.0.1' }]);
  expect((await e2eDb().query(`SELECT 1 FROM login_throttle WHERE key LIKE $1`, [`pair:%${op.email.toLowerCase()}%`])).rowCount).toBe(0);
});

for (const next of ['/%5Cevil.example', '/%09/evil.example']) {
  test(`after sign-in, next=${next} stays on the site`, async ({ page, baseURL }) => {
    const op = await seedUser('viewer', 'next');
    await page.goto(`/login?next=${next}`);
    await page.getByLabel('Email').fill(op.email);
    await page.getByLabel('Password').fill(op.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page).toHaveURL(new URL('/', baseURL).href);
  });
}

test('pages carry a nonce CSP their own scripts satisfy; API responses their own policy; both nosniff and unframeable', async ({ page, request }) => {
  const res = await page.goto('/login');
  const h = res!.headers();
  const csp = h['content-security-policy']!;
  const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
  expect(nonce).toBeTruthy();
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).not.toMatch(/script-src[^;]*'unsafe-inline'/);
  expect(h['x-content-type-options']).toBe('nosniff');
  expect(h['x-frame-options']).toBe('DENY');
  expect(h['referrer-policy']).toBe('same-origin');
  // Next put the nonce on its scripts, and the page works (the form hydrates and answers).
  const html = await res!.text();
  expect(html).toContain(`nonce="${nonce}"`);
  const again = await request.get('/login');
  expect(/'nonce-([^']+)'/.exec(again.headers()['content-security-policy']!)?.[1]).not.toBe(nonce);
  await page.getByLabel('Email').fill('nobody@sluice.test');
  await page.getByLabel('Password').fill('not-the-password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('main').getByRole('alert')).toHaveText('Incorrect email or password.');

  for (const path of ['/api/trpc/auth.me', '/api/v1/openapi.json', '/metrics']) {
    const api = await request.get(path);
    expect(api.headers()['content-security-policy'], path).toBe("default-src 'none'; frame-ancestors 'none'");
    expect(api.headers()['x-content-type-options'], path).toBe('nosniff');
  }
});

test('the server refuses a 10 MB sign-in body with 413 before parsing it, and a cross-origin mutation with 403', async ({ request }) => {
  const big = await request.post('/api/trpc/auth.signIn', {
    data: JSON.stringify({ json: { email: 'x@sluice.test', password: 'x'.repeat(10 * 1024 * 1024) } }),
    headers: { 'content-type': 'application/json' },
  });
  expect(big.status()).toBe(413);
  expect(await big.json()).toEqual({ error: 'request body too large: the limit is 1048576 bytes', code: 'PAYLOAD_TOO_LARGE' });

  const op = await seedUser('admin', 'csrf');
  await signInViaApi(request, op);
  const target = `csrf-target-${Date.now()}@sluice.test`;
  const evil = await trpcMutation(request, 'users.create', { email: target, role: 'admin' }, { origin: 'http://evil.example' });
  expect(evil.status).toBe(403);
  expect((await e2eDb().query(`SELECT 1 FROM users WHERE email = $1`, [target])).rowCount).toBe(0);
  const same = await trpcMutation(request, 'users.create', { email: target, role: 'viewer' });
  expect(same.status).toBe(200);
  expect((await e2eDb().query(`SELECT 1 FROM users WHERE email = $1`, [target])).rowCount).toBe(1);
});
