// The console against a real streaming replica: a primary and a hot standby of the spec's
// own (Debian's PostgreSQL 15, pg_basebackup -R), the production build served with
// DATABASE_URL = primary and DATABASE_REPLICA_URL = replica. With the replica's replay
// paused, the Executions page shows the replica's rows (not the ones just enqueued on the
// primary) and every page says the replica is behind; resumed, the page catches up and the
// notice goes. Background jobs are off in this server, so no roll-up sets a data delay and
// any replica lag is worth the notice.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { test, expect } from './support/fixtures';
import { PG15_AVAILABLE, startPrimaryWithReplica, type PrimaryWithReplica } from '../test/support/replica';
import { migrate } from '../server/db/migrate';
import { createPool } from '../server/db/pool';
import { ensureFirstAdmin } from '../server/services/users';
import { enqueue } from '../server/services/enqueue';
import { applyConfig } from '../server/services/config-versions';
import { SYSTEM_ACTOR } from '../server/db/audit';
import { freePort } from '../test/support/free-port';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ADMIN = { email: 'replica-admin@sluice.test', password: 'replica-admin-password-1' };

test.describe.configure({ timeout: 180_000 });
test.skip(!PG15_AVAILABLE, 'PostgreSQL 15 server binaries not installed');

function dbUrl(url: string, name: string) {
  const u = new URL(url);
  u.pathname = '/' + name;
  return u.toString();
}


let servers: PrimaryWithReplica | undefined;
let primary: pg.Pool | undefined;
let web: ChildProcess | undefined;
let baseUrl = '';

test.beforeAll(async () => {
  servers = await startPrimaryWithReplica();
  const admin = new pg.Client({ connectionString: servers.primaryUrl });
  await admin.connect();
  await admin.query('CREATE DATABASE sluice');
  await admin.end();
  const primaryDb = dbUrl(servers.primaryUrl, 'sluice');
  await migrate(primaryDb);
  primary = createPool(primaryDb, 2);
  await ensureFirstAdmin(primary, { SLUICE_ADMIN_EMAIL: ADMIN.email, SLUICE_ADMIN_PASSWORD: ADMIN.password });
  await applyConfig(primary, SYSTEM_ACTOR, { tasks: [{ name: 'replica-mail', partitions: 1 }] }, { message: 'replica e2e' });
  await enqueue(primary, 'replica-mail', Array.from({ length: 3 }, (_, i) => ({ payload: { n: i } })));
  await servers.waitForReplay();

  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  // The build global-setup made (ensureBuild), served as `npm start` serves it.
  web = spawn(process.execPath, [path.join(ROOT, 'server', 'web', 'serve.mjs'), '--port', String(port), '--host', '127.0.0.1'], {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      ...process.env,
      DATABASE_URL: primaryDb,
      DATABASE_REPLICA_URL: dbUrl(servers.replicaUrl, 'sluice'),
      SLUICE_CONTROL_PLANE_SERVICES: '0',
      NODE_ENV: 'production',
      NEXT_TELEMETRY_DISABLED: '1',
      PORT: String(port),
    },
  });
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (web.exitCode !== null) throw new Error(`the web server exited with ${web.exitCode}`);
    const ok = await fetch(`${baseUrl}/login`, { redirect: 'manual' }).then((r) => r.status < 500, () => false);
    if (ok) break;
    if (Date.now() > deadline) throw new Error('the web server did not answer in 60 s');
    await new Promise((r) => setTimeout(r, 250));
  }
});

test.afterAll(async () => {
  if (web?.pid && web.exitCode === null) {
    const exited = new Promise((r) => web!.once('exit', r));
    process.kill(-web.pid, 'SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
  }
  await servers?.resumeReplay().catch(() => {});
  await primary?.end();
  await servers?.stop();
});

test('lists read the replica: paused, new work is not shown and the notice says how far behind; resumed, both catch up', async ({ page }) => {
  const signIn = await page.request.post(`${baseUrl}/api/trpc/auth.signIn`, {
    data: { json: { email: ADMIN.email, password: ADMIN.password } },
    headers: { origin: baseUrl },
  });
  expect(signIn.status()).toBe(200);

  const rows = page.locator('[data-testid^="execution-row-"]');
  await page.goto(`${baseUrl}/executions?task=replica-mail`);
  await expect(rows).toHaveCount(3);
  await expect(page.getByTestId('replica-lag')).toHaveCount(0);

  await servers!.pauseReplay();
  await enqueue(primary!, 'replica-mail', Array.from({ length: 2 }, (_, i) => ({ payload: { n: 10 + i } })));
  expect((await primary!.query(`SELECT count(*)::int AS n FROM executions WHERE task = 'replica-mail'`)).rows[0].n).toBe(5);
  await page.waitForTimeout(1_000);
  await page.reload();
  await expect(page.getByTestId('replica-lag')).toContainText(/replica that is .+ behind the primary/);
  await expect(rows).toHaveCount(3);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: test.info().outputPath('replica-lag-390.png'), fullPage: false });
  await page.setViewportSize({ width: 1440, height: 900 });

  await servers!.resumeReplay();
  await servers!.waitForReplay();
  await page.reload();
  await expect(rows).toHaveCount(5);
  await expect(page.getByTestId('replica-lag')).toHaveCount(0);
});
