// Spawns real coordinator processes (`node bin/sluice.js coordinator …`) against a test
// database, with short heartbeat/stale/lease timings, and tears them down. Also creates
// the test_runs table the test handlers write to, and checks recorded runs for limit
// and order violations.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { testDatabase, type TestDatabase } from '../integration/db';

const ROOT = path.resolve(import.meta.dirname, '..', '..');

export interface CoordinatorProcess {
  name: string;
  child: ChildProcess;
  output: string[];
  exited: Promise<number | null>;
  kill(signal?: NodeJS.Signals): void;
}

export interface StartProcessOptions {
  name: string;
  handlers?: string;
  slots?: number;
  tasks?: string[];
  metricsPort?: number;
  env?: Record<string, string>;
  args?: string[];
}

export const FAST_TIMINGS = {
  SLUICE_HEARTBEAT_MS: '200',
  SLUICE_STALE_MS: '1000',
  SLUICE_LEASE_GRACE_MS: '1000',
  SLUICE_POLL_MS: '20',
  SLUICE_CONFIG_POLL_MS: '500',
  SLUICE_SHUTDOWN_GRACE_MS: '3000',
  SLUICE_MAINTENANCE_SCALE: '0.2',
};

export class CoordinatorHarness {
  readonly procs: CoordinatorProcess[] = [];

  constructor(private readonly databaseUrl: string) {}

  async start(o: StartProcessOptions): Promise<CoordinatorProcess> {
    const args = [
      path.join(ROOT, 'bin', 'sluice.js'),
      'coordinator',
      '--handlers',
      path.join(ROOT, o.handlers ?? 'test/support/handlers/record.ts'),
      '--name',
      o.name,
      '--slots',
      String(o.slots ?? 10),
      ...(o.tasks ? ['--tasks', o.tasks.join(',')] : []),
      ...(o.metricsPort !== undefined ? ['--metrics-port', String(o.metricsPort)] : []),
      ...(o.args ?? []),
    ];
    const child = spawn(process.execPath, args, {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: this.databaseUrl, ...FAST_TIMINGS, ...o.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output: string[] = [];
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const started = new Promise<void>((resolve, reject) => {
      const onData = (b: Buffer) => {
        const s = b.toString();
        output.push(s);
        if (s.includes('started as')) resolve();
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', (b: Buffer) => output.push(b.toString()));
      void exited.then((code) => reject(new Error(`coordinator ${o.name} exited (${code}) before starting:\n${output.join('')}`)));
      setTimeout(() => reject(new Error(`coordinator ${o.name} did not start in 30 s:\n${output.join('')}`)), 30_000).unref();
    });
    const p: CoordinatorProcess = { name: o.name, child, output, exited, kill: (sig = 'SIGTERM') => void child.kill(sig) };
    this.procs.push(p);
    await started;
    return p;
  }

  async stopAll(): Promise<void> {
    await Promise.all(
      this.procs.map(async (p) => {
        if (p.child.exitCode !== null || p.child.signalCode !== null) return;
        p.kill('SIGTERM');
        const t = setTimeout(() => p.kill('SIGKILL'), 8000);
        await p.exited;
        clearTimeout(t);
      }),
    );
  }
}

export async function createRunsTable(pool: pg.Pool): Promise<void> {
  await pool.query(`CREATE TABLE IF NOT EXISTS test_runs (
    execution_id bigint NOT NULL, attempt int NOT NULL, task text NOT NULL, groups jsonb NOT NULL, stream_key text,
    seq int, started_ms double precision NOT NULL, finished_ms double precision NOT NULL, pid int NOT NULL)`);
}

/** Max number of recorded runs overlapping in time, per group key (and '*' for the task). */
export async function maxOverlapPerKey(pool: pg.Pool, task: string): Promise<Map<string, number>> {
  const r = await pool.query<{ k: string; s: number; f: number }>(
    `SELECT k, started_ms AS s, finished_ms AS f FROM test_runs, LATERAL (
       SELECT j.key || '=' || j.value AS k FROM jsonb_each_text(groups) j UNION ALL SELECT '*'
     ) keys WHERE task = $1`,
    [task],
  );
  const events = new Map<string, [number, number][]>();
  for (const { k, s, f } of r.rows) {
    const e = events.get(k) ?? [];
    e.push([s, 1], [f, -1]);
    events.set(k, e);
  }
  const out = new Map<string, number>();
  for (const [k, e] of events) {
    e.sort((a, b) => a[0] - b[0] || a[1] - b[1]); // ends before starts at the same instant
    let cur = 0;
    let max = 0;
    for (const [, d] of e) {
      cur += d;
      max = Math.max(max, cur);
    }
    out.set(k, max);
  }
  return out;
}

/** Streams whose recorded runs overlap or ran out of seq order. */
export async function streamViolations(pool: pg.Pool, task: string): Promise<string[]> {
  const r = await pool.query<{ stream_key: string; seq: number; s: number; f: number }>(
    `SELECT stream_key, seq, started_ms AS s, finished_ms AS f FROM test_runs
     WHERE task = $1 AND stream_key IS NOT NULL ORDER BY stream_key, started_ms`,
    [task],
  );
  const out: string[] = [];
  let prev: (typeof r.rows)[number] | undefined;
  for (const row of r.rows) {
    if (prev && prev.stream_key === row.stream_key) {
      if (row.s < prev.f) out.push(`${row.stream_key}: seq ${row.seq} started before seq ${prev.seq} finished`);
      if (row.seq < prev.seq) out.push(`${row.stream_key}: seq ${row.seq} ran after seq ${prev.seq}`);
    }
    prev = row;
  }
  return out;
}

export async function waitFor<T>(what: string, fn: () => Promise<T | false | null | undefined>, timeoutMs = 20_000, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** One test file's setting for real coordinator processes: a fresh database (with the
 *  test_runs table the record handlers write) and a harness whose processes are stopped
 *  after the file. Read `ctx.db` / `ctx.h` inside tests (they are set in beforeAll). */
export function coordinatorTestContext(): { readonly db: TestDatabase; readonly h: CoordinatorHarness } {
  const ctx = {} as { db: TestDatabase; h: CoordinatorHarness };
  beforeAll(async () => {
    ctx.db = await testDatabase();
    await createRunsTable(ctx.db.pool);
    ctx.h = new CoordinatorHarness(ctx.db.url);
  });
  afterAll(async () => {
    await ctx.h?.stopAll();
  });
  return ctx;
}
