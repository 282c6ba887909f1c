// Metrics sampler: one read of partition_stats with partition_outcomes (the finish-only
// totals and histograms) and the sampler's cursor, deltas and
// histogram percentiles computed here, then one multi-row INSERT of samples (per
// partition and a partition = -1 task total), one cursor upsert and one INSERT…SELECT
// of the top group keys from group_slots (group_slot_counts: with the moves not yet
// folded). Nothing reads `executions`: the counters
// were moved by enqueue/claim/finish, so a sample costs O(partitions + keys with work).
// Rate-held executions (issue #19): the task total's `rate_held` gauge from readRateHeld
// (rate_state, group_slots and partition_stats by key: O(rate_state rows)), never above the
// depth this sample writes; 0 for a task without a rate, NULL per partition.
import type { Db } from './pool';
import { readRateHeld } from './read-rate-held';

/** Upper bounds (ms) of the latency buckets; mirrors sluice_latency_bounds() in SQL. */
export const LATENCY_BOUNDS_MS = [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000, 60000, 300000];

/** p-quantile (0..1) of a bucketed histogram, interpolated inside the bucket; null if empty. */
export function histogramQuantile(counts: readonly number[], q: number): number | null {
  const total = counts.reduce((a, b) => a + b, 0);
  if (total === 0) return null;
  const rank = q * total;
  let cum = 0;
  for (let i = 0; i < counts.length; i++) {
    const c = counts[i] ?? 0;
    if (c > 0 && cum + c >= rank) {
      const lo = i === 0 ? 0 : LATENCY_BOUNDS_MS[i - 1]!;
      const hi = LATENCY_BOUNDS_MS[i] ?? LATENCY_BOUNDS_MS[LATENCY_BOUNDS_MS.length - 1]! * 2;
      return lo + ((hi - lo) * (rank - cum)) / c;
    }
    cum += c;
  }
  return LATENCY_BOUNDS_MS[LATENCY_BOUNDS_MS.length - 1]!;
}

/** This interval's counts per bucket: the cumulative histogram minus the cursor's copy (17 buckets). */
function histDelta(now: readonly number[], before: readonly number[] | null): number[] {
  return Array.from({ length: 17 }, (_, i) => Math.max(0, Number(now[i] ?? 0) - Number(before?.[i] ?? 0)));
}

interface StatRow {
  task: string;
  partition: number;
  depth: number;
  in_flight: number;
  spilled: number;
  arrivals_total: number;
  processed_total: number;
  failed_total: number;
  retried_total: number;
  dead_total: number;
  shed_total: number;
  rejected_total: number;
  canceled_total: number;
  spilled_total: number;
  throttled_total: number;
  lat_hist: number[];
  wait_hist: number[];
  run_hist: number[];
  now: Date;
  c_at: Date | null;
  c_arrivals: number | null;
  c_processed: number | null;
  c_failed: number | null;
  c_retried: number | null;
  c_dead: number | null;
  c_shed: number | null;
  c_rejected: number | null;
  c_canceled: number | null;
  c_spills: number | null;
  c_throttled: number | null;
  c_hist: number[] | null;
  c_wait: number[] | null;
  c_run: number[] | null;
}

const TOTALS = ['arrivals', 'processed', 'failed', 'retried', 'dead', 'shed', 'rejected', 'canceled', 'spills', 'throttled'] as const;

export interface SampleWriteResult {
  samples: number;
  topKeys: number;
}

export async function writeMetricSamples(db: Db, topKeysPerTask = 10): Promise<SampleWriteResult> {
  const r = await db.query<StatRow>(
    `SELECT ps.task, ps.partition, ps.depth, ps.in_flight, ps.spilled, ps.arrivals_total, po.processed_total, po.failed_total,
            po.retried_total, po.dead_total, ps.shed_total, ps.rejected_total, po.canceled_total, ps.spilled_total, ps.throttled_total,
            po.lat_hist, po.wait_hist, po.run_hist, now() AS now,
            c.at AS c_at, c.arrivals_total AS c_arrivals, c.processed_total AS c_processed, c.failed_total AS c_failed,
            c.retried_total AS c_retried, c.dead_total AS c_dead, c.shed_total AS c_shed, c.rejected_total AS c_rejected,
            c.canceled_total AS c_canceled, c.spilled_total AS c_spills, c.throttled_total AS c_throttled, c.lat_hist AS c_hist,
            c.wait_hist AS c_wait, c.run_hist AS c_run
     FROM partition_stats ps
     JOIN partition_outcomes po ON po.task = ps.task AND po.partition = ps.partition
     JOIN task_runtime t ON t.task = ps.task AND t.active
     LEFT JOIN metric_cursor c ON c.task = ps.task AND c.partition = ps.partition
     ORDER BY ps.task, ps.partition`,
  );
  if (r.rows.length === 0) return { samples: 0, topKeys: 0 };
  const now = r.rows[0]!.now;
  const rateHeld = new Map((await readRateHeld(db)).map((h) => [h.task, Number(h.rate_held)]));
  type Sample = {
    task: string; partition: number; intervalMs: number; depth: number; inFlight: number; spilled: number; rateHeld: number | null;
    d: Record<(typeof TOTALS)[number], number>; hist: number[]; wait: number[]; run: number[];
  };
  const samples: Sample[] = [];
  const perTask = new Map<string, Sample>();
  for (const row of r.rows) {
    const hist = histDelta(row.lat_hist, row.c_hist);
    const wait = histDelta(row.wait_hist, row.c_wait);
    const run = histDelta(row.run_hist, row.c_run);
    const cur: Record<(typeof TOTALS)[number], number> = {
      arrivals: row.arrivals_total, processed: row.processed_total, failed: row.failed_total, retried: row.retried_total,
      dead: row.dead_total, shed: row.shed_total, rejected: row.rejected_total, canceled: row.canceled_total,
      spills: row.spilled_total, throttled: row.throttled_total,
    };
    const prev: Record<(typeof TOTALS)[number], number | null> = {
      arrivals: row.c_arrivals, processed: row.c_processed, failed: row.c_failed, retried: row.c_retried,
      dead: row.c_dead, shed: row.c_shed, rejected: row.c_rejected, canceled: row.c_canceled,
      spills: row.c_spills, throttled: row.c_throttled,
    };
    const d = Object.fromEntries(TOTALS.map((k) => [k, Math.max(0, Number(cur[k]) - Number(prev[k] ?? 0))])) as Sample['d'];
    const intervalMs = row.c_at ? Math.max(0, now.getTime() - row.c_at.getTime()) : 0;
    const s: Sample = { task: row.task, partition: row.partition, intervalMs, depth: Number(row.depth), inFlight: row.in_flight, spilled: Number(row.spilled), rateHeld: null, d, hist, wait, run };
    samples.push(s);
    const t = perTask.get(row.task);
    if (!t) {
      perTask.set(row.task, { ...s, partition: -1, d: { ...d }, hist: [...hist], wait: [...wait], run: [...run] });
    } else {
      t.intervalMs = Math.max(t.intervalMs, intervalMs);
      t.depth += s.depth;
      t.inFlight += s.inFlight;
      t.spilled += s.spilled;
      for (const k of TOTALS) t.d[k] += d[k];
      hist.forEach((v, i) => (t.hist[i]! += v));
      wait.forEach((v, i) => (t.wait[i]! += v));
      run.forEach((v, i) => (t.run[i]! += v));
    }
  }
  for (const t of perTask.values()) t.rateHeld = Math.min(rateHeld.get(t.task) ?? 0, t.depth);
  const all = [...samples, ...perTask.values()];
  await db.query(
    `INSERT INTO metric_samples (task, partition, at, interval_ms, depth, in_flight, spilled, arrivals, processed, failed, retried,
                                 dead_lettered, shed, rejected, latency_p50_ms, latency_p99_ms, canceled, spills, throttled, wait_p99_ms, run_p99_ms, rate_held)
     SELECT task, partition, $1, iv, depth, inf, sp, a, p, f, r, d, sh, rj, p50, p99, cx, sps, th, wp99, rp99, rh
     FROM unnest($2::text[], $3::int[], $4::int[], $5::bigint[], $6::int[], $7::bigint[], $8::bigint[], $9::bigint[], $10::bigint[],
                 $11::bigint[], $12::bigint[], $13::bigint[], $14::bigint[], $15::float8[], $16::float8[], $17::bigint[], $18::bigint[], $19::bigint[],
                 $20::float8[], $21::float8[], $22::bigint[])
       AS x(task, partition, iv, depth, inf, sp, a, p, f, r, d, sh, rj, p50, p99, cx, sps, th, wp99, rp99, rh)
     ON CONFLICT (task, partition, at) DO NOTHING`,
    [
      now,
      all.map((s) => s.task), all.map((s) => s.partition), all.map((s) => s.intervalMs), all.map((s) => s.depth), all.map((s) => s.inFlight),
      all.map((s) => s.spilled), all.map((s) => s.d.arrivals), all.map((s) => s.d.processed), all.map((s) => s.d.failed),
      all.map((s) => s.d.retried), all.map((s) => s.d.dead), all.map((s) => s.d.shed), all.map((s) => s.d.rejected),
      all.map((s) => histogramQuantile(s.hist, 0.5)), all.map((s) => histogramQuantile(s.hist, 0.99)), all.map((s) => s.d.canceled),
      all.map((s) => s.d.spills), all.map((s) => s.d.throttled),
      all.map((s) => histogramQuantile(s.wait, 0.99)), all.map((s) => histogramQuantile(s.run, 0.99)), all.map((s) => s.rateHeld),
    ],
  );
  // The cursor takes exactly the values diffed above (not a re-read), so events that
  // land between the read and this write show up in the next sample instead of vanishing.
  await db.query(
    `INSERT INTO metric_cursor AS c (task, partition, at, arrivals_total, processed_total, failed_total, retried_total, dead_total,
                                     shed_total, rejected_total, lat_hist, canceled_total, spilled_total, throttled_total, wait_hist, run_hist)
     SELECT task, partition, $1, a, p, f, r, d, sh, rj, h::bigint[], cx, sps, th, wh::bigint[], rh::bigint[]
     FROM unnest($2::text[], $3::int[], $4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[], $8::bigint[], $9::bigint[], $10::bigint[], $11::text[], $12::bigint[],
                 $13::bigint[], $14::bigint[], $15::text[], $16::text[])
       AS u(task, partition, a, p, f, r, d, sh, rj, h, cx, sps, th, wh, rh)
     ON CONFLICT (task, partition) DO UPDATE SET at = excluded.at, arrivals_total = excluded.arrivals_total,
       processed_total = excluded.processed_total, failed_total = excluded.failed_total, retried_total = excluded.retried_total,
       dead_total = excluded.dead_total, shed_total = excluded.shed_total, rejected_total = excluded.rejected_total, lat_hist = excluded.lat_hist,
       canceled_total = excluded.canceled_total, spilled_total = excluded.spilled_total, throttled_total = excluded.throttled_total,
       wait_hist = excluded.wait_hist, run_hist = excluded.run_hist`,
    [
      now,
      r.rows.map((x) => x.task), r.rows.map((x) => x.partition), r.rows.map((x) => x.arrivals_total), r.rows.map((x) => x.processed_total),
      r.rows.map((x) => x.failed_total), r.rows.map((x) => x.retried_total), r.rows.map((x) => x.dead_total), r.rows.map((x) => x.shed_total),
      r.rows.map((x) => x.rejected_total), r.rows.map((x) => `{${x.lat_hist.join(',')}}`), r.rows.map((x) => x.canceled_total),
      r.rows.map((x) => x.spilled_total), r.rows.map((x) => x.throttled_total),
      r.rows.map((x) => `{${x.wait_hist.join(',')}}`), r.rows.map((x) => `{${x.run_hist.join(',')}}`),
    ],
  );
  const top = await db.query(
    `INSERT INTO metric_top_keys (task, at, group_name, group_key, in_flight, queued)
     SELECT task, $1, group_name, group_key, in_flight, queued FROM (
       SELECT gs.task, gs.group_name, gs.group_key, greatest(gs.in_flight, 0) AS in_flight, greatest(gs.queued, 0) AS queued,
              row_number() OVER (PARTITION BY gs.task ORDER BY greatest(gs.in_flight, 0) + greatest(gs.queued, 0) DESC, gs.group_name, gs.group_key) AS rn
       FROM group_slot_counts gs WHERE greatest(gs.in_flight, 0) + greatest(gs.queued, 0) > 0
     ) ranked WHERE rn <= $2
     ON CONFLICT DO NOTHING`,
    [now, topKeysPerTask],
  );
  return { samples: all.length, topKeys: top.rowCount ?? 0 };
}
