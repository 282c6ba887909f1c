// Helpers for the Observe integration tests and the dashboard bench: write metric
// samples the way a coordinator's sampler would (per partition plus the task total at
// partition −1), without running coordinators.
import type pg from 'pg';

export interface SampleValues {
  depth: number;
  inFlight?: number;
  arrivals?: number;
  processed?: number;
  failed?: number;
  retried?: number;
  deadLettered?: number;
  latencyP50Ms?: number | null;
  latencyP99Ms?: number | null;
}

export interface SampleSeries {
  task: string;
  partitions: number;
  /** Sample times, ms epoch. */
  times: number[];
  intervalMs: number;
  /** Values of one partition at one time. */
  values: (partition: number, at: number) => SampleValues;
  /** Task-total latency at one time (percentiles are not summed from partitions). */
  totalLatency?: (at: number) => { p50: number | null; p99: number | null };
}

/** Inserts per-partition samples and their task totals (partition −1); returns rows written. */
export async function insertSamples(pool: pg.Pool, s: SampleSeries): Promise<number> {
  const cols = {
    task: [] as string[], partition: [] as number[], at: [] as Date[], interval: [] as number[], depth: [] as number[],
    inFlight: [] as number[], arrivals: [] as number[], processed: [] as number[], failed: [] as number[],
    retried: [] as number[], dead: [] as number[], p50: [] as (number | null)[], p99: [] as (number | null)[],
  };
  const push = (partition: number, at: number, v: Required<SampleValues>) => {
    cols.task.push(s.task); cols.partition.push(partition); cols.at.push(new Date(at)); cols.interval.push(s.intervalMs);
    cols.depth.push(v.depth); cols.inFlight.push(v.inFlight); cols.arrivals.push(v.arrivals); cols.processed.push(v.processed);
    cols.failed.push(v.failed); cols.retried.push(v.retried); cols.dead.push(v.deadLettered); cols.p50.push(v.latencyP50Ms); cols.p99.push(v.latencyP99Ms);
  };
  for (const at of s.times) {
    const total: Required<SampleValues> = { depth: 0, inFlight: 0, arrivals: 0, processed: 0, failed: 0, retried: 0, deadLettered: 0, latencyP50Ms: null, latencyP99Ms: null };
    for (let p = 0; p < s.partitions; p++) {
      const v: Required<SampleValues> = { inFlight: 0, arrivals: 0, processed: 0, failed: 0, retried: 0, deadLettered: 0, latencyP50Ms: null, latencyP99Ms: null, ...s.values(p, at) };
      push(p, at, v);
      for (const k of ['depth', 'inFlight', 'arrivals', 'processed', 'failed', 'retried', 'deadLettered'] as const) total[k] += v[k];
    }
    const lat = s.totalLatency?.(at) ?? { p50: null, p99: null };
    push(-1, at, { ...total, latencyP50Ms: lat.p50, latencyP99Ms: lat.p99 });
  }
  const chunk = 20_000;
  for (let i = 0; i < cols.task.length; i += chunk) {
    const sl = <T,>(a: T[]) => a.slice(i, i + chunk);
    await pool.query(
      `INSERT INTO metric_samples (task, partition, at, interval_ms, depth, in_flight, arrivals, processed, failed, retried, dead_lettered, latency_p50_ms, latency_p99_ms)
       SELECT * FROM unnest($1::text[], $2::int[], $3::timestamptz[], $4::int[], $5::bigint[], $6::int[], $7::bigint[], $8::bigint[], $9::bigint[], $10::bigint[], $11::bigint[], $12::float8[], $13::float8[])`,
      [sl(cols.task), sl(cols.partition), sl(cols.at), sl(cols.interval), sl(cols.depth), sl(cols.inFlight), sl(cols.arrivals), sl(cols.processed), sl(cols.failed), sl(cols.retried), sl(cols.dead), sl(cols.p50), sl(cols.p99)],
    );
  }
  return cols.task.length;
}

/** Sample times every `intervalMs` ending at `endMs` (inclusive), `count` of them. */
export function sampleTimes(endMs: number, intervalMs: number, count: number): number[] {
  return Array.from({ length: count }, (_, i) => endMs - (count - 1 - i) * intervalMs);
}

/** Sets the live depth counter of each partition (what enqueue/claim keep exact). */
export async function setPartitionDepths(pool: pg.Pool, task: string, depths: number[]): Promise<void> {
  await pool.query(
    `UPDATE partition_stats ps SET depth = d.depth FROM unnest($2::int[], $3::bigint[]) AS d(partition, depth)
     WHERE ps.task = $1 AND ps.partition = d.partition`,
    [task, depths.map((_, i) => i), depths],
  );
}

/** Sets live group-key loads (group_slots) for hot-key scenarios. */
export async function setGroupKeyLoads(pool: pg.Pool, task: string, group: string, loads: Record<string, { inFlight: number; queued: number }>): Promise<void> {
  for (const [key, l] of Object.entries(loads)) {
    await pool.query(
      `INSERT INTO group_slots (task, group_name, group_key, in_flight, queued) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (task, group_name, group_key) DO UPDATE SET in_flight = excluded.in_flight, queued = excluded.queued`,
      [task, group, key, l.inFlight, l.queued],
    );
  }
}
