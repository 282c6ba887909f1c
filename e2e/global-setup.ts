// Before the specs: a fresh migrated database (on DATABASE_URL's server, else an embedded
// Postgres), the production build (ensureBuild: rebuilt only when sources changed), the
// first admin with known credentials, and the control plane's server (server/web/serve.mjs,
// as `npm start` runs it) on a free port. Returns the
// teardown that stops the server and drops the database.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestPostgres } from '../test/support/test-postgres';
import { urlForDatabase } from '../test/support/test-postgres';
import { createPool } from '../server/db/pool';
import { ensureFirstAdmin } from '../server/services/users';
import { publishE2eEnv } from './support/e2e-env';
import { freePort } from '../test/support/free-port';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ADMIN = { email: 'e2e-admin@sluice.test', password: 'e2e-admin-password-1' };


async function waitForHttp(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the web server exited with code ${child.exitCode} before serving ${url}`);
    try {
      const r = await fetch(url, { redirect: 'manual' });
      if (r.status < 500) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms`);
}

export default async function globalSetup(): Promise<() => Promise<void>> {
  const pg = await startTestPostgres('e2e');
  const databaseUrl = urlForDatabase(pg.adminUrl, pg.templateDb);
  let server: ChildProcess | undefined;
  const teardown = async () => {
    if (server && server.exitCode === null && server.pid) {
      const exited = new Promise((r) => server!.once('exit', r));
      process.kill(-server.pid, 'SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
    }
    await pg.stop();
  };
  try {
    const pool = createPool(databaseUrl, 2);
    try {
      await ensureFirstAdmin(pool, { SLUICE_ADMIN_EMAIL: ADMIN.email, SLUICE_ADMIN_PASSWORD: ADMIN.password });
    } finally {
      await pool.end();
    }

    const { ensureBuild } = await import('../server/cli/build');
    await ensureBuild({ log: (m) => console.log(`[e2e] ${m}`) });

    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    server = spawn(process.execPath, [path.join(ROOT, 'server', 'web', 'serve.mjs'), '--port', String(port), '--host', '127.0.0.1'], {
      cwd: ROOT,
      detached: true, // its own process group, so teardown stops next and its workers
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, DATABASE_URL: databaseUrl, NODE_ENV: 'production', NEXT_TELEMETRY_DISABLED: '1', PORT: String(port) },
    });
    await waitForHttp(`${baseUrl}/login`, server, 60_000);
    publishE2eEnv({ baseUrl, databaseUrl, adminEmail: ADMIN.email, adminPassword: ADMIN.password });
    return teardown;
  } catch (e) {
    await teardown();
    throw e;
  }
}
