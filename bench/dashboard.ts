// Dashboard benchmark: `npm run bench:dashboard` (`-- --quick` for a seconds-long run,
// `--json FILE` to write the figures). In a fresh database on DATABASE_URL's server (or
// an embedded Postgres), dropped afterwards:
//   1. full run: a fleet of 16 tasks × 64 partitions with 7 days of history — the last
//      10 minutes as raw samples every 10 s (written with generate_series the way a
//      sampler would, then rolled up by the roll-up service: the cards' 5-minute window),
//      older chart buckets written straight into metric_rollup_series as the roll-up's
//      fold leaves them (one row per task and bucket, 64 depths each) — 10-second buckets
//      over 2 h and 1-minute buckets over 6 h (their chart ranges), 5-minute buckets over
//      25 h (the 24 h chart), 1-hour buckets over 7 days (the 7 d chart). The Overview
//      reads exactly these; the per-partition metric_rollups rows behind them (read by
//      the drill-down and the alert evaluator, not the Overview) are written only for
//      the raw window: 7 days of them for 16 × 65 series take this run past 2 minutes.
//      quick run: one 64-partition task with 2 h of samples and three small tasks.
//   2. the roll-up service's first run (catch-up over the raw samples) and a steady tick;
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
  ? { partitions: 64, hours: 2, intervalS: 10, iterations: 20, warmup: 3, ranges: ['1h', '24h'] as TimeRange[], fleet: 0, historyDays: 0 }
  : { partitions: 64, hours: 1 / 6, intervalS: 10, iterations: 40, warmup: 5, ranges: ['15m', '1h', '6h', '24h', '7d'] as TimeRange[], fleet: 15, historyDays: 7 };
const TASK = 'dashboard-bench';
/** quick: three small tasks beside the big one; full: 15 more tasks of 64 partitions (16 in all). */
const SMALL = quick ? ['small-a', 'small-b', 'small-c'] : [];
const FLEET = Array.from({ length: S.fleet }, (_, i) => `fleet-${String(i + 1).padStart(2, '0')}`);
const ALL_TASKS = [TASK, ...FLEET, ...SMALL];

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

/**
 * Chart buckets older than the raw window, as the roll-up service's fold leaves them in
 * metric_rollup_series (one row per task and bucket, the 64 partitions' depths as an
 * array), for each task, from `fromS` to `toS` seconds ago.
 */
async function writeHistory(resolutionS: number, fromS: number, toS: number, partitions: number, now: Date): Promise<number> {
  const r = await pool.query(
    `INSERT INTO metric_rollup_series (resolution_s, task, bucket, partitions, depths, total_depth, covered_ms, arrivals, processed,
                                       failed, retried, dead_lettered, latency_p50_ms, latency_p99_ms, canceled, shed, rejected, spills, throttled)
     SELECT $1::int, t, b, d.parts, d.depths, d.total, $1::int * 1000, $4::int * $1::int, $4::int * $1::int, $4::int * ($1::int / 50), 0, 0,
            250 + 50 * sin(extract(epoch FROM b) / 600), 1800 + 900 * sin(extract(epoch FROM b) / 900), 0, 0, 0, 0, 0
     FROM unnest($6::text[]) AS t
     CROSS JOIN generate_series(to_timestamp(floor(extract(epoch FROM $5::timestamptz - make_interval(secs => $2::int)) / $1::int) * $1::int),
                                $5::timestamptz - make_interval(secs => $3::int), make_interval(secs => $1::int)) AS b
     CROSS JOIN LATERAL (
       SELECT array_agg(p ORDER BY p) AS parts, array_agg(v ORDER BY p) AS depths, sum(v)::bigint AS total
       FROM generate_series(0, $4::int - 1) AS p
       CROSS JOIN LATERAL (SELECT greatest(0, round(200 + 150 * sin(extract(epoch FROM b) / 1800 + p)))::bigint AS v) x
     ) d`,
    [resolutionS, fromS, toS, partitions, now, [TASK, ...FLEET]],
  );
  return r.rowCount ?? 0;
}

try {
  const now = new Date();
  await applyConfig(
    pool,
    SYSTEM_ACTOR,
    {
      tasks: [
        { name: TASK, partitions: S.partitions, routing: { strategy: 'hash', keyPath: 'tenant' } },
        ...FLEET.map((name) => ({ name, partitions: S.partitions })),
        ...SMALL.map((name) => ({ name, partitions: 8 })),
      ],
    },
    { message: 'bench' },
  );
  let t = Date.now();
  let rows = await writeSamples(TASK, S.partitions, S.hours * 3600, S.intervalS, now);
  for (const f of FLEET) rows += await writeSamples(f, S.partitions, S.hours * 3600, S.intervalS, now);
  for (const s of SMALL) rows += await writeSamples(s, 8, 3600, S.intervalS, now);
  const insertMs = Date.now() - t;
  log(`${rows.toLocaleString('en-US')} samples written in ${insertMs} ms`);
  let historyRows = 0;
  if (S.historyDays > 0) {
    t = Date.now();
    // Strictly before the raw window's first bucket of each resolution, so nothing overlaps the roll-up's.
    const rawS = S.hours * 3600;
    historyRows += await writeHistory(3600, S.historyDays * 86_400, rawS + 3600, S.partitions, now);
    historyRows += await writeHistory(10, 2 * 3600, rawS + 10, S.partitions, now);
    // 5-minute buckets over the 25 h the 24 h chart reads (kept 8 days in production; the
    // older ones are read by no chart, and writing them too takes this run past 2 minutes).
    historyRows += await writeHistory(300, 25 * 3600, rawS + 300, S.partitions, now);
    historyRows += await writeHistory(60, 6 * 3600, rawS + 60, S.partitions, now);
    log(`${historyRows.toLocaleString('en-US')} history buckets (${S.historyDays} days, ${ALL_TASKS.length} tasks) written in ${Date.now() - t} ms`);
  }
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
      if (o.cards.length !== ALL_TASKS.length || !o.charts || o.charts.partitions !== S.partitions) throw new Error('overview returned an unexpected shape');
    }
    const cpu = process.cpuUsage(cpu0);
    const round = (x: number | null) => Math.round((x ?? 0) * 100) / 100;
    const cpuMs = round((cpu.user + cpu.system) / 1000 / S.iterations);
    perRange[range] = { p50: round(percentile(times, 50)), p95: round(percentile(times, 95)), max: round(Math.max(...times)), node_cpu_ms: cpuMs, points, bytes };
    log(`overview ${range.padEnd(3)}: p50 ${perRange[range]!.p50} ms, p95 ${perRange[range]!.p95} ms, max ${perRange[range]!.max} ms, node CPU ${cpuMs} ms/call — ${points} buckets × ${S.partitions} partitions, ${(bytes / 1024).toFixed(0)} KiB`);
  }
  // Where an overview call's time goes: each statement it sends, timed from this process
  // (24 h range, `profileCalls` calls), and EXPLAIN ANALYZE of the slowest with its values.
  const byStatement = new Map<string, { ms: number[]; text: string; values: unknown[] }>();
  const query = pool.query.bind(pool) as (text: string, values?: unknown[]) => Promise<unknown>;
  (pool as unknown as { query: typeof query }).query = async (text: string, values?: unknown[]) => {
    const s0 = performance.now();
    const r = await query(text, values);
    const key = text.replace(/\s+/g, ' ').trim();
    const e = byStatement.get(key) ?? byStatement.set(key, { ms: [], text, values: values ?? [] }).get(key)!;
    e.ms.push(performance.now() - s0);
    return r;
  };
  const profileCalls = quick ? 3 : 20;
  for (let i = 0; i < profileCalls; i++) await caller.metrics.overview({ range: '24h', task: TASK });
  (pool as unknown as { query: typeof query }).query = query;
  const statements = [...byStatement.entries()]
    .map(([key, e]) => ({ sql: key.slice(0, 110), calls_per_overview: e.ms.length / profileCalls, mean_ms: Math.round((e.ms.reduce((a, b) => a + b, 0) / e.ms.length) * 100) / 100, e }))
    .sort((a, b) => b.mean_ms * b.calls_per_overview - a.mean_ms * a.calls_per_overview);
  log(`overview 24h statements, slowest first (mean ms × calls per overview):`);
  for (const st of statements.slice(0, 6)) log(`  ${String(st.mean_ms).padStart(7)} ms × ${st.calls_per_overview}  ${st.sql}`);
  if (!quick && statements[0]) {
    const plan = await pool.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${statements[0].e.text}`, statements[0].e.values);
    log(`EXPLAIN ANALYZE of the slowest:\n${plan.rows.map((r) => `    ${r['QUERY PLAN']}`).join('\n')}`);
  }

  const headline = perRange['24h']!;
  const result = {
    quick,
    partitions: S.partitions,
    tasks: ALL_TASKS.length,
    history_days: S.historyDays,
    history_buckets_written: historyRows,
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
    overview_statements: statements.slice(0, 8).map(({ sql, calls_per_overview, mean_ms }) => ({ sql, calls_per_overview, mean_ms })),
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
