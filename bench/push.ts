// Config push benchmark: `npm run bench:push` (`-- --quick` for a short run with 4
// coordinators, `--json FILE` to write {p50_ms, p99_ms, coordinators, reconverge_ms, …}).
//
// In a fresh migrated database (DATABASE_URL's server, else an embedded Postgres;
// dropped afterwards), N real coordinator processes (`bin/sluice.js coordinator`, 16 by
// default) serve one task. Then:
//   1. push latency: P config versions are applied one at a time (applyConfig: version +
//      audit + NOTIFY in one transaction). For each, the latency is
//        max over coordinators(applied_at) − the commit,
//      both on the database clock. The commit instant is a clock_timestamp() read right
//      after COMMIT returns (so it is late by at most one loopback round trip, ~0.1 ms, and
//      the latency is never flattered by more than that). applied_at is written by each
//      coordinator's config listener after it has loaded and applied the version. The
//      coordinators' config poll is left at its 5 s default, so a number below that came
//      through LISTEN/NOTIFY, not the poll.
//   2. reconvergence: every database connection of every coordinator (pool and LISTEN
//      connection) is killed with pg_terminate_backend, and a new version is applied at
//      once; reconverge_ms = from the kill until every coordinator has applied that
//      version (they must notice the dead connection, reconnect, LISTEN again and reload).
//      Repeated R times; the JSON holds the worst round.
// Bounded: fixed counts, a deadline on every wait, coordinators stopped (SIGTERM, then
// SIGKILL) and the database dropped on exit; loopback connections only.
import fs from 'node:fs';
import os from 'node:os';
import pg from 'pg';
import { startTestPostgres, urlForDatabase } from '../test/support/test-postgres';
import { CoordinatorHarness } from '../test/support/coordinator-harness';
import { applyConfig, currentConfig } from '../server/services/config-versions';
import { SYSTEM_ACTOR } from '../server/db/audit';
import { percentile } from '../server/core/metrics';

const args = process.argv.slice(2);
const valueOf = (flag: string) => (args.includes(flag) ? args[args.indexOf(flag) + 1] : undefined);
const quick = args.includes('--quick');
const jsonFile = valueOf('--json');
if (args.includes('--json') && (!jsonFile || jsonFile.startsWith('--'))) {
  console.error('--json needs a file name');
  process.exit(2);
}
const intArg = (flag: string, def: number, min: number, max: number): number => {
  const v = valueOf(flag);
  if (v === undefined) return def;
  if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max) {
    console.error(`${flag} must be a whole number from ${min} to ${max}, got "${v}"`);
    process.exit(2);
  }
  return Number(v);
};
const known = new Set(['--quick', '--json', '--coordinators', '--pushes', '--rounds']);
const unknown = args.filter((a, i) => !known.has(a) && !['--json', '--coordinators', '--pushes', '--rounds'].includes(args[i - 1] ?? ''));
if (unknown.length) {
  console.error(`unknown argument(s): ${unknown.join(' ')} (use --quick, --json FILE, --coordinators N, --pushes N, --rounds N)`);
  process.exit(2);
}

const S = {
  coordinators: intArg('--coordinators', quick ? 4 : 16, 1, 32),
  pushes: intArg('--pushes', quick ? 8 : 100, 1, 1000),
  rounds: intArg('--rounds', quick ? 1 : 3, 1, 20),
  warmup: quick ? 2 : 5,
};
const TASK = 'push-bench';
const DEFAULT_TIMINGS = {
  SLUICE_HEARTBEAT_MS: '2000',
  SLUICE_STALE_MS: '10000',
  SLUICE_LEASE_GRACE_MS: '5000',
  SLUICE_POLL_MS: '50',
  SLUICE_CONFIG_POLL_MS: '5000',
  SLUICE_SHUTDOWN_GRACE_MS: '3000',
  SLUICE_MAINTENANCE_SCALE: '1',
};
const WAIT_MS = 30_000;
const log = (m: string) => console.log(`[bench:push] ${m}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const pgServer = await startTestPostgres('benchpush');
const url = urlForDatabase(pgServer.adminUrl, pgServer.templateDb);
// Our own connections carry their own name, so the kill below spares them.
const pool = new pg.Pool({ connectionString: url, max: 4, application_name: 'sluice-bench-push' });
pool.on('error', () => {});
const harness = new CoordinatorHarness(url);

let concurrency = 10;
async function push(message: string): Promise<{ version: number; commitAt: Date }> {
  const cur = await currentConfig(pool);
  concurrency = concurrency >= 500 ? 10 : concurrency + 1;
  const r = await applyConfig(pool, SYSTEM_ACTOR, { tasks: [{ name: TASK, partitions: 16, concurrency }] }, { message, basedOn: cur.version });
  const t = await pool.query<{ at: Date }>('SELECT clock_timestamp() AS at');
  return { version: r.version, commitAt: t.rows[0]!.at };
}

/** Waits until every live coordinator applied `version`; returns the latest applied_at. */
async function allApplied(version: number, deadlineMs = WAIT_MS): Promise<Date> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const dead = harness.procs.find((p) => p.child.exitCode !== null || p.child.signalCode !== null);
    if (dead) {
      const tail = dead.output.join('').split('\n').filter(Boolean).slice(-12).join('\n');
      throw new Error(`coordinator ${dead.name} exited (${dead.child.exitCode ?? dead.child.signalCode}) while waiting for version ${version}:\n${tail}`);
    }
    const r = await pool.query<{ done: number; last: Date | null; errors: string[] }>(
      `SELECT count(*) FILTER (WHERE applied_version >= $1)::int AS done, max(applied_at) AS last,
              coalesce(array_agg(name || ': ' || apply_error) FILTER (WHERE apply_error IS NOT NULL), '{}') AS errors
       FROM coordinators WHERE stopped_at IS NULL`,
      [version],
    );
    const row = r.rows[0]!;
    if (row.errors.length) throw new Error(`apply errors: ${row.errors.join('; ')}`);
    if (row.done >= S.coordinators && row.last) return row.last;
    if (Date.now() > deadline) throw new Error(`only ${row.done} of ${S.coordinators} coordinators applied version ${version} within ${deadlineMs} ms`);
    // The figure comes from the rows' timestamps, so this poll's period does not bias it.
    await sleep(10);
  }
}

const ms = (a: Date, b: Date) => b.getTime() - a.getTime();
let exitCode = 0;
try {
  await push('bench: initial');
  const t0 = Date.now();
  // Start in batches: a tsx boot is CPU-heavy and the machine may have few cores.
  for (let i = 0; i < S.coordinators; i += 4) {
    await Promise.all(
      Array.from({ length: Math.min(4, S.coordinators - i) }, (_, j) =>
        harness.start({
          name: `push-${String(i + j + 1).padStart(2, '0')}`,
          handlers: 'bench/push-handlers.ts',
          slots: 4,
          tasks: [TASK],
          // Production defaults, not the harness's fast test timings: the idle claim poll
          // is 50 ms, and the config poll 5 s, so the figures are the NOTIFY path.
          env: DEFAULT_TIMINGS,
        }),
      ),
    );
  }
  await allApplied(1);
  log(`${S.coordinators} coordinators up and on version 1 in ${Date.now() - t0} ms`);

  for (let i = 0; i < S.warmup; i++) {
    const p = await push(`bench: warm-up ${i + 1}`);
    await allApplied(p.version);
  }

  const latencies: number[] = [];
  const applyMs: number[] = [];
  for (let i = 0; i < S.pushes; i++) {
    const p = await push(`bench: push ${i + 1}`);
    const last = await allApplied(p.version);
    latencies.push(Math.max(0, ms(p.commitAt, last)));
    const a = await pool.query<{ apply_ms: number[] }>('SELECT array_agg(apply_ms) AS apply_ms FROM coordinators WHERE stopped_at IS NULL');
    applyMs.push(...a.rows[0]!.apply_ms);
    // Spread pushes out (50–150 ms) so each one is measured on its own.
    await sleep(50 + Math.random() * 100);
  }
  const p50 = percentile(latencies, 50)!;
  const p99 = percentile(latencies, 99)!;
  log(`push latency over ${latencies.length} pushes to ${S.coordinators} coordinators: p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${Math.max(...latencies).toFixed(1)} ms (target p99 < 100 ms); apply itself p50 ${percentile(applyMs, 50)} ms, p99 ${percentile(applyMs, 99)} ms`);

  const rounds: number[] = [];
  for (let r = 0; r < S.rounds; r++) {
    const kill = await pool.query<{ at: Date; killed: number }>(
      `WITH k AS (
         SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity
         WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'
           AND application_name IS DISTINCT FROM 'sluice-bench-push'
       )
       SELECT clock_timestamp() AS at, count(*) FILTER (WHERE ok)::int AS killed FROM k`,
    );
    const { at, killed } = kill.rows[0]!;
    const p = await push(`bench: after kill ${r + 1}`);
    const last = await allApplied(p.version);
    rounds.push(ms(at, last));
    log(`round ${r + 1}: killed ${killed} coordinator connections; all ${S.coordinators} applied version ${p.version} ${ms(at, last)} ms after the kill`);
    await sleep(1000);
  }
  const reconverge = Math.max(...rounds);

  const out = {
    p50_ms: Math.round(p50 * 10) / 10,
    p99_ms: Math.round(p99 * 10) / 10,
    max_ms: Math.round(Math.max(...latencies) * 10) / 10,
    coordinators: S.coordinators,
    pushes: latencies.length,
    reconverge_ms: reconverge,
    reconverge_rounds_ms: rounds,
    apply_p50_ms: percentile(applyMs, 50),
    apply_p99_ms: percentile(applyMs, 99),
    load_average: os.loadavg().map((x) => Math.round(x * 100) / 100),
    cpus: os.cpus().length,
  };
  console.log(JSON.stringify(out));
  if (jsonFile) fs.writeFileSync(jsonFile, JSON.stringify(out, null, 2) + '\n');
} catch (e) {
  console.error(`[bench:push] failed: ${(e as Error).stack ?? e}`);
  for (const p of harness.procs) console.error(`--- ${p.name}\n${p.output.join('').slice(-2000)}`);
  exitCode = 1;
} finally {
  await harness.stopAll();
  await pool.end();
  await pgServer.stop();
}
process.exit(exitCode);
