// Dashboard benchmark: `npm run bench:dashboard` (`-- --quick` for a seconds-long run,
// `--json FILE` to write the figures). In a fresh database on DATABASE_URL's server (or
// an embedded Postgres), dropped afterwards:
//   1. a 64-partition task with 24 h of metric samples every 5 s (partitions + the task
//      total: 64 × 17,280 + 17,280 ≈ 1.1 M rows), plus three small tasks with the last
//      hour, written with generate_series the way a sampler would;
//   2. the roll-up service's first run (catch-up over everything) and a steady tick;
//   3. the Overview API — metrics.overview through the real tRPC router, as a viewer,
//      plus the superjson/JSON encoding of its response (what goes on the wire) —
//      called repeatedly per time range; p50/p95/max per range, and the CPU time this
//      process spent per call (wall time on a loaded machine includes waiting for a core).
// `overview_p95_ms` is the 24 h range (the heaviest the picker offers on 64 partitions).
// Target: < 50 ms.
import fs from 'node:fs';
import os from 'node:os';
import { startTestPostgres, urlForDatabase } from '../test/support/test-postgres';
import { createPool } from '../server/db/pool';
import { applyConfig } from '../server/services/config-versions';
import { SYSTEM_ACTOR } from '../server/db/audit';
import { rollupMetrics } from '../server/control-plane/services/rollup-metrics';
import { evaluateAlerts } from '../server/services/alerts';
import { percentile } from '../server/core/metrics';
import superjson from 'superjson';
import { callerAs } from '../test/support/trpc-caller';
import type { TimeRange } from '../server/core/rollup-buckets';
import { parseBenchArgs } from './support/bench-args';

const { quick, jsonFile } = parseBenchArgs();

const S = quick
  ? { partitions: 64, hours: 2, intervalS: 10, iterations: 20, warmup: 3, ranges: ['1h', '24h'] as TimeRange[] }
  : { partitions: 64, hours: 24, intervalS: 5, iterations: 200, warmup: 10, ranges: ['15m', '1h', '6h', '24h', '7d'] as TimeRange[] };
const TASK = 'dashboard-bench';
const SMALL = ['small-a', 'small-b', 'small-c'];

const pgServer = await startTestPostgres('benchdash');
const url = urlForDatabase(pgServer.adminUrl, pgServer.templateDb);
const pool = createPool(url, 8);
const log = (m: string) => console.log(`[bench:dashboard] ${m}`);

/** Samples for one task from `fromS` seconds ago to now, every `stepS`, via generate_series. */
async function writeSamples(task: string, partitions: number, fromS: number, stepS: number, now: Date): Promise<number> {
  const r = await pool.query(
    `INSERT INTO metric_samples (task, partition, at, interval_ms, depth, in_flight, arrivals, processed, failed, retried, dead_lettered, latency_p50_ms, latency_p99_ms)
     SELECT $1::text, p, ts, $3::int * 1000,
            m * greatest(0, round(200 + 150 * sin(extract(epoch FROM ts) / 1800 + p) + CASE WHEN p = 7 THEN 1500 ELSE 0 END))::bigint,
            m * 4, m * $3::int, m * $3::int, m * ($3::int / 5 % 2), m * ($3::int / 5 % 2), 0,
            CASE WHEN p = -1 THEN 250 + 50 * sin(extract(epoch FROM ts) / 600) END,
            CASE WHEN p = -1 THEN 1800 + 900 * sin(extract(epoch FROM ts) / 900) END
     FROM generate_series($5::timestamptz - make_interval(secs => $2::int), $5::timestamptz, make_interval(secs => $3::int)) AS ts
     CROSS JOIN generate_series(-1, $4::int - 1) AS p
     -- the task total (partition −1) carries the sum over the partitions
     CROSS JOIN LATERAL (SELECT CASE WHEN p = -1 THEN $4::int ELSE 1 END AS m) k`,
    [task, fromS, stepS, partitions, now],
  );
  return r.rowCount ?? 0;
}

try {
  const now = new Date();
  await applyConfig(
    pool,
    SYSTEM_ACTOR,
    { tasks: [{ name: TASK, partitions: S.partitions, routing: { strategy: 'hash', keyPath: 'tenant' } }, ...SMALL.map((name) => ({ name, partitions: 8 }))] },
    { message: 'bench' },
  );
  let t = Date.now();
  let rows = await writeSamples(TASK, S.partitions, S.hours * 3600, S.intervalS, now);
  for (const s of SMALL) rows += await writeSamples(s, 8, 3600, S.intervalS, now);
  const insertMs = Date.now() - t;
  log(`${rows.toLocaleString('en-US')} samples written in ${insertMs} ms`);
  await pool.query('ANALYZE metric_samples');

  t = Date.now();
  const first = await rollupMetrics(pool, now);
  const rollupCatchUpMs = Date.now() - t;
  await pool.query('ANALYZE metric_rollups');
  t = Date.now();
  await rollupMetrics(pool, new Date(now.getTime() + 10_000));
  const rollupTickMs = Date.now() - t;
  log(`roll-up: catch-up ${rollupCatchUpMs} ms (${JSON.stringify(first.buckets)} buckets), steady tick ${rollupTickMs} ms`);
  await pool.query(`UPDATE partition_stats SET depth = 200 + (partition % 5) * 40 + CASE WHEN partition = 7 THEN 1500 ELSE 0 END WHERE task = $1`, [TASK]);
  t = Date.now();
  const ev = await evaluateAlerts(pool, now);
  const evaluateMs = Date.now() - t;
  log(`alert evaluation over ${ev.tasks} tasks: ${evaluateMs} ms (${ev.observed} observations)`);

  const viewer = { id: '00000000-0000-4000-8000-00000000b001', email: 'bench@sluice.local', role: 'viewer' as const };
  const caller = callerAs(pool, viewer);
  const perRange: Record<string, { p50: number; p95: number; max: number; node_cpu_ms: number; points: number; bytes: number }> = {};
  for (const range of S.ranges) {
    for (let i = 0; i < S.warmup; i++) await caller.metrics.overview({ range, task: TASK });
    const times: number[] = [];
    const cpu0 = process.cpuUsage();
    let points = 0;
    let bytes = 0;
    for (let i = 0; i < S.iterations; i++) {
      const s = performance.now();
      const o = await caller.metrics.overview({ range, task: TASK });
      // What the HTTP handler adds: the superjson + JSON encoding of the response body.
      const body = JSON.stringify(superjson.serialize(o));
      times.push(performance.now() - s);
      points = o.charts?.points.length ?? 0;
      if (i === 0) bytes = body.length;
      if (o.cards.length !== SMALL.length + 1 || !o.charts || o.charts.partitions !== S.partitions) throw new Error('overview returned an unexpected shape');
    }
    const cpu = process.cpuUsage(cpu0);
    const round = (x: number | null) => Math.round((x ?? 0) * 100) / 100;
    const cpuMs = round((cpu.user + cpu.system) / 1000 / S.iterations);
    perRange[range] = { p50: round(percentile(times, 50)), p95: round(percentile(times, 95)), max: round(Math.max(...times)), node_cpu_ms: cpuMs, points, bytes };
    log(`overview ${range.padEnd(3)}: p50 ${perRange[range]!.p50} ms, p95 ${perRange[range]!.p95} ms, max ${perRange[range]!.max} ms, node CPU ${cpuMs} ms/call — ${points} buckets × ${S.partitions} partitions, ${(bytes / 1024).toFixed(0)} KiB`);
  }
  const headline = perRange['24h']!;
  const result = {
    quick,
    partitions: S.partitions,
    sample_hours: S.hours,
    sample_interval_s: S.intervalS,
    samples_written: rows,
    iterations: S.iterations,
    overview_p95_ms: headline.p95,
    overview_p50_ms: headline.p50,
    overview_by_range: perRange,
    rollup_catch_up_ms: rollupCatchUpMs,
    rollup_tick_ms: rollupTickMs,
    alert_evaluation_ms: evaluateMs,
    target_p95_ms: 50,
    meets_target: headline.p95 < 50,
    load_average_1m: Math.round(os.loadavg()[0]! * 10) / 10,
  };
  log(`overview_p95_ms (24 h, ${S.partitions} partitions) = ${headline.p95} ms — target < 50 ms: ${result.meets_target ? 'met' : 'NOT met'} (1-min load average ${result.load_average_1m} on ${os.cpus().length} cores)`);
  if (jsonFile) fs.writeFileSync(jsonFile, JSON.stringify(result, null, 2) + '\n');
} finally {
  await pool.end();
  await pgServer.stop();
}
