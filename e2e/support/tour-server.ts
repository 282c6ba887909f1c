// The tour's system: exactly what an operator gets from `npm start` — `node bin/sluice.js
// start --no-build` with the demo on (config, three coordinators, the demo producer with
// its hot-partition episode starting at once) — on a fresh database created on the e2e
// run's Postgres server. The build is the one e2e/global-setup.ts made fresh (ensureBuild
// is called again; it only rebuilds when sources changed). stop() ends the whole process
// tree (SIGINT to `sluice start`, which stops its children; SIGKILL to the process group
// after a grace) and drops the database.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { adminQuery, urlForDatabase } from '../../test/support/test-postgres';
import { e2eEnv } from './e2e-env';
import { freePort } from '../../test/support/free-port';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface TourServer {
  baseUrl: string;
  databaseUrl: string;
  adminEmail: string;
  adminPassword: string;
  /** Date.now() when `sluice start` printed "Sluice is running at". */
  runningAt: number;
  startedAt: number;
  /** Everything `sluice start` and its children printed so far. */
  output(): string;
  stop(): Promise<void>;
}


function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function startTourServer(): Promise<TourServer> {
  const adminUrl = urlForDatabase(e2eEnv().databaseUrl, 'postgres');
  const db = `sluice_tour_${process.pid}_${Date.now().toString(36)}`;
  await adminQuery(adminUrl, `CREATE DATABASE ${db}`);
  const databaseUrl = urlForDatabase(adminUrl, db);
  const admin = { email: 'tour-admin@sluice.test', password: 'tour-admin-password-1' };

  let child: ChildProcess | undefined;
  let out = '';
  const stop = async () => {
    if (child?.pid) {
      const pid = child.pid;
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child!.once('exit', r));
        child.kill('SIGINT');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
      }
      // Whatever is left of the group (next, coordinators, the producer) goes now.
      if (groupAlive(pid)) {
        process.kill(-pid, 'SIGKILL');
        const until = Date.now() + 5_000;
        while (groupAlive(pid) && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
      }
    }
    // What `sluice start` and its children printed, for a failed tour's post-mortem.
    fs.mkdirSync(path.join(ROOT, 'test-results'), { recursive: true });
    fs.writeFileSync(path.join(ROOT, 'test-results', 'tour-sluice-start.log'), out);
    await adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
  };

  try {
    const { ensureBuild } = await import('../../server/cli/build');
    await ensureBuild({ log: (m) => console.log(`[tour] ${m}`) });
    const port = await freePort();
    const startedAt = Date.now();
    child = spawn(process.execPath, [path.join(ROOT, 'bin', 'sluice.js'), 'start', '--no-build'], {
      cwd: ROOT,
      detached: true, // its own process group: stop() can reach every descendant
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        DATABASE_URL: databaseUrl,
        PORT: String(port),
        HOST: '127.0.0.1',
        SLUICE_ADMIN_EMAIL: admin.email,
        SLUICE_ADMIN_PASSWORD: admin.password,
        SLUICE_DEMO: '1',
        SLUICE_COORDINATORS: '3',
        SLUICE_DEMO_EPISODE_START_MS: '0',
        NEXT_TELEMETRY_DISABLED: '1',
      },
    });
    const running = new Promise<string>((resolve, reject) => {
      const onData = (b: Buffer) => {
        out += b.toString();
        if (out.length > 2_000_000) out = out.slice(-1_000_000);
        const m = out.match(/Sluice is running at (http:\/\/\S+)/);
        if (m) resolve(m[1]!);
      };
      child!.stdout!.on('data', onData);
      child!.stderr!.on('data', onData);
      child!.once('exit', (code) => reject(new Error(`sluice start exited (code ${code}) before it was running:\n${out.slice(-4000)}`)));
      setTimeout(() => reject(new Error(`sluice start did not report running within 90 s:\n${out.slice(-4000)}`)), 90_000).unref();
    });
    const baseUrl = await running;
    return { baseUrl, databaseUrl, adminEmail: admin.email, adminPassword: admin.password, startedAt, runningAt: Date.now(), output: () => out, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}
