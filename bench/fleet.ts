// Many hosts, simulated: `npm run bench:fleet` (`-- --members 3,12,48`, `-- --jobs N`,
// `-- --pool N`, `-- --quick`, `-- --json FILE`). Issue #18: what one Postgres primary does
// when coordinators run on many hosts, each reaching it through a transaction pooler.
//
// For each member count N: a fresh database (DATABASE_URL's server, or an embedded one), a
// PgBouncer of the bench's own in transaction mode in front of it (Debian's pgbouncer; server
// pool `--pool`, default 16), 4 tasks × 32 partitions of no-op W1 work, N coordinators in this
// process, each serving every task with 16 slots, connected through the bouncer and without a
// direct URL (so they poll: a wake-up is a hint, never needed for correctness). A backlog of
// `--jobs` executions is enqueued, then the members are started and it burns down. Printed
// per N, over the burn-down window:
//   jobs/s          executions finished per second
//   commits/s       the database's xact_commit delta per second (pg_stat_database), and per job
//   pg CPU          CPU time of the database's backends (utime + stime of each backend pid in
//                   /proc, sampled every 250 ms; bench sampling included), ms per 1,000 jobs,
//                   and the ceiling it implies: jobs/s if Postgres had every core of this
//                   machine to itself (cores × 1,000 ÷ CPU ms per job)
//   backends        the most server connections to the database at once (pg_stat_activity)
//   clients         the most client connections the bouncer held at once (SHOW CLIENTS)
//   bench CPU       this process's CPU share of the window (its members, handlers, the
//                   bouncer's clients): near 100% of a core means the bench, not Postgres,
//                   set the pace
// JSON keys: fleet_<N>_jobs_per_s, fleet_<N>_commits_per_s, fleet_<N>_commits_per_job,
// fleet_<N>_pg_cpu_ms_per_1k, fleet_<N>_pg_ceiling_jobs_per_s, fleet_<N>_backends,
// fleet_<N>_clients, fleet_<N>_bench_cpu_pct; plus fleet_cores, fleet_pool.
import fs from 'node:fs';
import os from 'node:os';
import pg from 'pg';
import { startTestPostgres, cloneDatabase, type TestPostgres } from '../test/support/test-postgres';
import { startPgBouncer, type PgBouncer } from '../test/support/pgbouncer';
import { createPool } from '../server/db/pool';
import { applyConfig } from '../server/services/config-versions';
import { SYSTEM_ACTOR } from '../server/db/audit';
import { enqueue } from '../server/services/enqueue';
import { startCoordinator, type RunningCoordinator } from '../server/coordinator/main';
import { waitForSettledOwnership } from './support/settled-ownership';
import type { TaskDefinitionInput } from '../server/core/task-definition';

function usage(msg: string): never {
  console.error(`${msg}\nusage: npm run bench:fleet -- [--members 3,12,48] [--jobs N] [--pool N] [--quick] [--json FILE]`);
  process.exit(2);
}
const argv = process.argv.slice(2);
let members = [3, 12, 48];
let jobs: number | undefined;
let poolSize = 16;
let quick = false;
let jsonFile: string | undefined;
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  if (a === '--members') {
    const v = (argv[++i] ?? '').split(',').map(Number);
    if (v.length === 0 || v.some((n) => !Number.isInteger(n) || n < 1 || n > 200)) usage('--members takes a comma-separated list of counts from 1 to 200');
    members = v;
  } else if (a === '--jobs') {
    jobs = Number(argv[++i]);
    if (!Number.isInteger(jobs) || jobs < 100 || jobs > 1_000_000) usage('--jobs takes a whole number from 100 to 1000000');
  } else if (a === '--pool') {
    poolSize = Number(argv[++i]);
    if (!Number.isInteger(poolSize) || poolSize < 2 || poolSize > 80) usage('--pool takes a whole number from 2 to 80 (server connections of the bouncer)');
  } else if (a === '--quick') quick = true;
  else if (a === '--json') {
    jsonFile = argv[++i];
    if (!jsonFile || jsonFile.startsWith('--')) usage('--json needs a file name');
  } else usage(`unknown argument: ${a}`);
}
if (quick && !argv.includes('--members')) members = [2, 6];
const JOBS = jobs ?? (quick ? 2_000 : 20_000);
const TASKS = ['fleet-0', 'fleet-1', 'fleet-2', 'fleet-3'];
const SLOTS = 16;
// The defaults (poll 50 ms, flush 5 ms) but a 1 s heartbeat (ownership settles sooner) and a
// 200 ms config poll: without a direct URL there is no LISTEN, and the run starts by resuming
// the paused tasks, which members learn from the config poll.
const TIMINGS = { heartbeatMs: 1000, configPollMs: 200 };
const TICK_HZ = 100; // Linux USER_HZ: /proc/<pid>/stat counts CPU in 1/100 s

/** utime + stime of a process, in ms (null once it has exited). */
function procCpuMs(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // the command name (field 2) may hold spaces: fields after its closing parenthesis
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1000) / TICK_HZ; // fields 14 and 15 of stat
  } catch {
    return null;
  }
}

interface RunResult {
  members: number;
  jobsPerS: number;
  commitsPerS: number;
  commitsPerJob: number;
  pgCpuMsPer1k: number;
  pgCeiling: number;
  backends: number;
  clients: number;
  benchCpuPct: number;
  seconds: number;
}

async function runOne(server: TestPostgres, n: number): Promise<RunResult> {
  const url = await cloneDatabase(server.adminUrl, server.templateDb, `m${n}`);
  const dbName = new URL(url).pathname.slice(1);
  const pool = createPool(url, 4);
  const bouncer: PgBouncer = await startPgBouncer(url, { poolSize, maxClients: 2000 });
  const admin = new pg.Client({ connectionString: bouncer.adminUrl });
  await admin.connect();
  const cs: RunningCoordinator[] = [];
  try {
    const defs = (paused: boolean): TaskDefinitionInput[] =>
      TASKS.map((name) => ({ name, partitions: 32, concurrency: 10_000, paused, backpressure: { maxDepth: 10_000_000 } }));
    await applyConfig(pool, SYSTEM_ACTOR, { tasks: defs(true) }, { message: 'fleet bench (paused)' });
    for (let t = 0; t < TASKS.length; t++) {
      const per = Math.floor(JOBS / TASKS.length) + (t < JOBS % TASKS.length ? 1 : 0);
      for (let i = 0; i < per; i += 5000) await enqueue(pool, TASKS[t]!, Array.from({ length: Math.min(5000, per - i) }, (_, k) => ({ payload: { i: i + k } })));
    }
    await pool.query('VACUUM (ANALYZE) executions, partition_stats, task_runtime');
    const handlers = Object.fromEntries(TASKS.map((t) => [t, () => {}]));

    // Samplers: backends of this database (pid → CPU), the bouncer's clients.
    const firstCpu = new Map<number, number>();
    const lastCpu = new Map<number, number>();
    let backends = 0;
    let clients = 0;
    const sampleBackends = async () => {
      const r = await pool.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1', [dbName]);
      backends = Math.max(backends, r.rows.length);
      for (const { pid } of r.rows) {
        const ms = procCpuMs(pid);
        if (ms === null) continue;
        if (!firstCpu.has(pid)) firstCpu.set(pid, ms);
        lastCpu.set(pid, ms);
      }
      const c = await admin.query<{ database: string }>('SHOW CLIENTS');
      clients = Math.max(clients, c.rows.filter((x) => x.database === dbName).length);
    };
    const commits = async () =>
      Number((await pool.query<{ n: string }>('SELECT xact_commit AS n FROM pg_stat_database WHERE datname = $1', [dbName])).rows[0]!.n);
    const finished = async () =>
      Number((await pool.query<{ n: string }>('SELECT coalesce(sum(processed_total), 0) AS n FROM partition_outcomes')).rows[0]!.n);

    // The tasks are paused while the members start and take their shares of the partitions
    // (the rendezvous assignment of all of them), then resumed: the window opens at the
    // resume and closes when every job has finished. The CPU baseline is taken just before
    // (backends opened later count from their first sample, a few ms of their start
    // uncounted).
    for (let i = 0; i < n; i++) {
      cs.push(await startCoordinator({ databaseUrl: bouncer.url, handlers, name: `fleet-${n}-${i}`, slots: SLOTS, timings: TIMINGS, maintenance: i === 0, log: () => {} }));
    }
    await waitForSettledOwnership(pool, TASKS, cs.map((c) => c.id), 60_000);
    await sampleBackends();
    for (const pid of lastCpu.keys()) firstCpu.set(pid, lastCpu.get(pid)!);
    const c0 = await commits();
    const cpu0 = process.cpuUsage();
    const t0 = Date.now();
    await applyConfig(pool, SYSTEM_ACTOR, { tasks: defs(false) }, { message: 'fleet bench (resumed)' });
    const deadline = Date.now() + 600_000;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        await sampleBackends();
        await new Promise((r) => setTimeout(r, 250));
      }
    })();
    while ((await finished()) < JOBS) {
      if (Date.now() > deadline) throw new Error(`${n} members: the burn-down of ${JOBS} jobs did not finish in 10 minutes`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const seconds = (Date.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const c1 = await commits();
    sampling = false;
    await sampler;
    await sampleBackends();
    let pgCpu = 0;
    for (const [pid, last] of lastCpu) pgCpu += last - (firstCpu.get(pid) ?? last);
    // jobs/s over first claim → last finish (the resume reaching the members through their
    // config poll does not count); commits and CPU over the whole window from the resume.
    const w = await pool.query<{ s: number }>('SELECT extract(epoch FROM max(finished_at) - min(started_at)) AS s FROM executions');
    const jobsPerS = JOBS / Math.max(0.001, Number(w.rows[0]!.s));
    const pgCpuMsPerJob = pgCpu / JOBS;
    return {
      members: n,
      jobsPerS,
      commitsPerS: (c1 - c0) / seconds,
      commitsPerJob: (c1 - c0) / JOBS,
      pgCpuMsPer1k: pgCpuMsPerJob * 1000,
      pgCeiling: pgCpuMsPerJob > 0 ? (os.cpus().length * 1000) / pgCpuMsPerJob : NaN,
      backends,
      clients,
      benchCpuPct: (100 * (cpu.user + cpu.system)) / 1000 / (seconds * 1000),
      seconds,
    };
  } finally {
    await Promise.all(cs.map((c) => c.stop()));
    await admin.end().catch(() => {});
    await bouncer.stop();
    await pool.end();
  }
}

const server = await startTestPostgres('fleet');
const results: RunResult[] = [];
try {
  for (const n of members) {
    const r = await runOne(server, n);
    results.push(r);
    console.log(`  ${n} members: ${Math.round(r.jobsPerS)} jobs/s in ${r.seconds.toFixed(1)} s`);
  }
} finally {
  await server.stop();
}

const load = os.loadavg().map((x) => x.toFixed(2)).join(' ');
console.log(`\nSluice fleet: N coordinators (${SLOTS} slots each, no direct URL: claim poll 50 ms, config poll ${TIMINGS.configPollMs} ms) through one PgBouncer (transaction mode, server pool ${poolSize}) to one Postgres; ${JOBS} no-op jobs over ${TASKS.length} tasks × 32 partitions; ${os.cpus().length} cores, load average ${load}`);
console.log(`  ${'members'.padStart(7)} ${'jobs/s'.padStart(8)} ${'commits/s'.padStart(9)} ${'per job'.padStart(7)} ${'pg CPU ms/1k'.padStart(12)} ${'pg ceiling/s'.padStart(12)} ${'backends'.padStart(8)} ${'clients'.padStart(7)} ${'bench CPU'.padStart(9)}`);
for (const r of results) {
  console.log(
    `  ${String(r.members).padStart(7)} ${r.jobsPerS.toFixed(0).padStart(8)} ${r.commitsPerS.toFixed(0).padStart(9)} ${r.commitsPerJob.toFixed(3).padStart(7)} ${r.pgCpuMsPer1k.toFixed(0).padStart(12)} ${r.pgCeiling.toFixed(0).padStart(12)} ${String(r.backends).padStart(8)} ${String(r.clients).padStart(7)} ${`${r.benchCpuPct.toFixed(0)}%`.padStart(9)}`,
  );
}
console.log('  pg ceiling = jobs/s if the database backends had every core to themselves at the CPU per job measured; bench CPU near 100% of a core means this process set the pace');
const out: Record<string, number> = { fleet_cores: os.cpus().length, fleet_pool: poolSize };
for (const r of results) {
  const k = `fleet_${r.members}_`;
  out[`${k}jobs_per_s`] = Math.round(r.jobsPerS);
  out[`${k}commits_per_s`] = Math.round(r.commitsPerS);
  out[`${k}commits_per_job`] = Number(r.commitsPerJob.toFixed(4));
  out[`${k}pg_cpu_ms_per_1k`] = Number(r.pgCpuMsPer1k.toFixed(1));
  out[`${k}pg_ceiling_jobs_per_s`] = Math.round(r.pgCeiling);
  out[`${k}backends`] = r.backends;
  out[`${k}clients`] = r.clients;
  out[`${k}bench_cpu_pct`] = Math.round(r.benchCpuPct);
}
if (jsonFile) fs.writeFileSync(jsonFile, JSON.stringify(out, null, 2) + '\n');
process.exit(0);
