// Roll-ups and the Overview/drill-down presenters over samples written directly (as a
// coordinator's sampler would): bucket arithmetic, idempotent re-runs, late samples,
// retention, range → resolution, thresholds and worst status, drain forecasts.
import { describe, it, expect, beforeAll } from 'vitest';
import { testDatabase, type TestDatabase } from './db';
import { applyTasks } from '../support/engine-fixtures';
import { insertSamples, sampleTimes, setPartitionDepths } from '../support/observe-fixtures';
import { rollupMetrics } from '../../server/control-plane/services/rollup-metrics';
import { getOverview } from '../../server/presenters/overview';
import { getTaskCharts, getTaskPartitions } from '../../server/presenters/task-metrics';
import { bucketStart } from '../../server/core/rollup-buckets';

let db: TestDatabase;
const NOW = bucketStart(Date.now(), 60) + 5_000; // 5 s into a minute: buckets are predictable

async function rollup(task: string, res: number) {
  const r = await db.pool.query(
    `SELECT bucket, partition, samples, depth_max, depth_last, depth_sum, arrivals, processed, retried, failed, dead_lettered, latency_p99_ms
     FROM metric_rollups WHERE task = $1 AND resolution_s = $2 ORDER BY bucket, partition`,
    [task, res],
  );
  return r.rows;
}

beforeAll(async () => {
  db = await testDatabase();
  await applyTasks(db.pool, [
    { name: 'steady', partitions: 4, thresholds: { depth: { warning: 100, critical: 500 } } },
    { name: 'hot', partitions: 4 },
    { name: 'idle', partitions: 2 },
  ]);
  // steady: 10 minutes of 5 s samples; partition p has depth 10·(p+1) + minute index,
  // 2 arrivals, 2 processed, 1 failed of which 1 retried each sample; p99 = 40 ms.
  await insertSamples(db.pool, {
    task: 'steady',
    partitions: 4,
    intervalMs: 5000,
    times: sampleTimes(NOW, 5000, 120),
    values: (p, at) => ({ depth: 10 * (p + 1) + Math.floor((NOW - at) / 60_000), arrivals: 2, processed: 2, failed: 1, retried: 1 }),
    totalLatency: (at) => ({ p50: 5, p99: at === NOW - 60_000 ? 900 : 40 }),
  });
  // hot: partition 0 at 6000 deep (critical for the default 5000 threshold).
  await setPartitionDepths(db.pool, 'hot', [6000, 10, 10, 10]);
  await insertSamples(db.pool, {
    task: 'hot',
    partitions: 4,
    intervalMs: 5000,
    times: sampleTimes(NOW, 5000, 24),
    values: (p) => ({ depth: p === 0 ? 6000 : 10, arrivals: p === 0 ? 50 : 1, processed: 3 }),
  });
  await rollupMetrics(db.pool, new Date(NOW));
});

describe('rollup-metrics', () => {
  it('10 s buckets hold two 5 s samples each: sums, max and last', async () => {
    const rows = await rollup('steady', 10);
    const b = rows.filter((r) => r.bucket.getTime() === NOW - 5_000 - 10_000); // a closed bucket
    expect(b).toHaveLength(5); // partitions 0..3 and the total
    const p3 = b.find((r) => r.partition === 3)!;
    expect(p3).toMatchObject({ samples: 2, arrivals: 4, processed: 4, failed: 2, retried: 2 });
    const tot = b.find((r) => r.partition === -1)!;
    expect(tot).toMatchObject({ samples: 2, arrivals: 16, processed: 16 });
    expect(tot.depth_max).toBe(10 + 20 + 30 + 40);
  });

  it('coarser buckets agree with the raw samples, whichever source they are rolled from', async () => {
    const raw = await db.pool.query<{ arrivals: number; n: number }>(
      `SELECT sum(arrivals)::bigint AS arrivals, count(*)::int AS n FROM metric_samples WHERE task = 'steady' AND partition = -1`,
    );
    for (const res of [10, 60, 300, 3600]) {
      const rows = (await rollup('steady', res)).filter((r) => r.partition === -1);
      expect(rows.reduce((a, r) => a + r.arrivals, 0), `${res}s arrivals`).toBe(raw.rows[0]!.arrivals);
      expect(rows.reduce((a, r) => a + r.samples, 0), `${res}s samples`).toBe(raw.rows[0]!.n);
    }
    // The p99 spike of one sample survives every level as the bucket max.
    for (const res of [60, 300, 3600]) {
      const peak = Math.max(...(await rollup('steady', res)).filter((r) => r.partition === -1).map((r) => r.latency_p99_ms));
      expect(peak, `${res}s p99`).toBe(900);
    }
    // depth_last of a 1-minute bucket is its latest sample's depth.
    const m = (await rollup('steady', 60)).find((r) => r.partition === 0 && r.bucket.getTime() === NOW - 5_000 - 60_000)!;
    expect(m.depth_last).toBe(10); // its latest sample is NOW − 10 s, less than a minute old
    expect(m.samples).toBe(12);
  });

  it('re-running is idempotent and picks up samples that arrive late', async () => {
    const before = await rollup('steady', 60);
    await rollupMetrics(db.pool, new Date(NOW + 1_000));
    expect(await rollup('steady', 60)).toEqual(before);
    // A late sample 3 s after NOW, written after the run above.
    await insertSamples(db.pool, { task: 'steady', partitions: 4, intervalMs: 3000, times: [NOW + 3_000], values: () => ({ depth: 999, arrivals: 7 }) });
    await rollupMetrics(db.pool, new Date(NOW + 4_000));
    const last10 = (await rollup('steady', 10)).filter((r) => r.bucket.getTime() === bucketStart(NOW + 3_000, 10));
    expect(last10.find((r) => r.partition === 0)).toMatchObject({ depth_max: 999, depth_last: 999 });
    const hour = (await rollup('steady', 3600)).filter((r) => r.partition === -1);
    const raw = await db.pool.query(`SELECT sum(arrivals)::bigint AS a FROM metric_samples WHERE task = 'steady' AND partition = -1`);
    expect(hour.reduce((a, r) => a + r.arrivals, 0)).toBe(raw.rows[0].a);
  });

  it('records the cursor per resolution and applies retention', async () => {
    const st = await db.pool.query('SELECT resolution_s, rolled_until FROM metric_rollup_state ORDER BY 1');
    expect(st.rows.map((r) => r.resolution_s)).toEqual([10, 60, 300, 3600]);
    // A sample 25 h old and a 10 s bucket 3 h old are both past retention.
    await insertSamples(db.pool, { task: 'idle', partitions: 2, intervalMs: 5000, times: [NOW - 25 * 3600_000], values: () => ({ depth: 1 }) });
    await db.pool.query(
      `INSERT INTO metric_rollups SELECT 10, 'idle', $1, 0, 1, 5000, $1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, NULL, NULL`,
      [new Date(NOW - 3 * 3600_000)],
    );
    const r = await rollupMetrics(db.pool, new Date(NOW + 5_000));
    expect(r.pruned.samples).toBe(3);
    expect(r.pruned.rollups).toBeGreaterThanOrEqual(1);
    const left = await db.pool.query(`SELECT count(*)::int AS n FROM metric_samples WHERE task = 'idle'`);
    expect(left.rows[0].n).toBe(0);
  });
});

describe('overview presenter', () => {
  it('orders cards worst first and evaluates each task against its own thresholds', async () => {
    const o = await getOverview(db.pool, { range: '1h' }, new Date(NOW + 5_000));
    expect(o.cards.map((c) => c.task)).toEqual(['hot', 'steady', 'idle']);
    const hot = o.cards[0]!;
    expect(hot.worst).toBe('critical');
    expect(hot.health.metrics.depth).toMatchObject({ value: 6000, status: 'critical', warning: 1000, critical: 5000 });
    expect(hot.health.metrics.imbalance.value).toBeCloseTo(6000 / ((6000 + 30) / 4));
    const steady = o.cards[1]!;
    // retry rate = retried ÷ (processed + failed) = 1 ÷ 3 per partition-sample: critical (> 25%).
    expect(steady.health.metrics.retryRate.value).toBeCloseTo(1 / 3);
    expect(steady.health.metrics.depth.warning).toBe(100);
    expect(o.cards[2]).toMatchObject({ task: 'idle', worst: 'ok', throughput: null });
    expect(o.fleet.tasks).toBe(3);
    expect(o.fleet.tasksByStatus).toEqual({ critical: 2, warning: 0, ok: 1, unknown: 0 });
    expect(o.selectedTask).toBe('hot');
    expect(o.fleet.rollupLagMs).not.toBeNull();
  });

  it('charts: resolution per range, per-partition depth, thresholds from the task config', async () => {
    const now = new Date(NOW + 5_000);
    const c15 = await getTaskCharts(db.pool, { task: 'steady', range: '15m' }, now);
    expect(c15.resolutionS).toBe(10);
    expect(c15.points).toHaveLength(91);
    expect(c15.thresholds.depth).toEqual({ warning: 100, critical: 500 });
    const p = c15.points.find((x) => x.t === NOW - 5_000 - 10_000)!;
    expect(p.depth).toEqual([10, 20, 30, 40]);
    expect(p.imbalance).toBeCloseTo(40 / 25);
    expect(p.retryRate).toBeCloseTo(8 / 24);
    expect(p.dlqRate).toBe(0);
    expect(p.throughput).toBeCloseTo(16 / 10); // 8 processed per 5 s sample, two samples in 10 s
    expect(p.arrivalRate).toBeCloseTo(16 / 10);
    // Gaps stay gaps: buckets before the first sample are null, not 0.
    expect(c15.points[0]!.depthTotal).toBeNull();
    // The seeded data is minutes old: longer ranges are fitted to the smallest range that
    // holds it (server/core/chart-scale.ts fitRange; the range → resolution table itself is
    // server/core/rollup-buckets.test.ts), and say which range was asked for.
    for (const range of ['6h', '24h', '7d'] as const) {
      const c = await getTaskCharts(db.pool, { task: 'steady', range }, now);
      expect(c).toMatchObject({ range: '15m', requestedRange: range, resolutionS: 10 });
      expect(c.points).toHaveLength(91);
      expect(c.points.find((x) => x.t === NOW - 5_000 - 10_000)!.depth).toEqual([10, 20, 30, 40]);
    }
    const idle = await getTaskCharts(db.pool, { task: 'idle', range: '1h' }, now);
    expect(idle.pointsWithData).toBe(0);
    await expect(getTaskCharts(db.pool, { task: 'nope', range: '1h' }, now)).rejects.toThrow(/not found/);
  });
});

describe('partition drill-down', () => {
  it('live depth, rates over the window, owner and the drain-time forecast', async () => {
    const d = await getTaskPartitions(db.pool, 'hot', new Date(NOW + 5_000));
    expect(d.partitions).toHaveLength(4);
    const p0 = d.partitions[0]!;
    expect(p0.depth).toBe(6000);
    expect(p0.depthStatus).toBe('critical');
    // 24 samples × 5 s = 120 s covered; 50 arrivals and 3 processed per sample.
    expect(p0.arrivalRate).toBeCloseTo(50 / 5);
    expect(p0.drainRate).toBeCloseTo(3 / 5);
    expect(p0.drainForecastMs).toBeNull(); // growing: never drains at this rate
    const p1 = d.partitions[1]!;
    expect(p1.netDrainRate).toBeCloseTo(2 / 5);
    expect(p1.drainForecastMs! / 1000).toBeCloseTo(10 / (2 / 5), 2); // 10 deep, draining 0.4/s net
    expect(p1.owner).toBeNull();
    expect(d.imbalance).toBeCloseTo(6000 / (6030 / 4));
  });
});

describe('rollup rebuild', () => {
  it('a back-filled sample older than the lateness allowance needs a rebuild', async () => {
    const at = NOW - 5 * 60_000 + 1_000; // 5 minutes back: a normal tick does not revisit it
    await insertSamples(db.pool, { task: 'idle', partitions: 2, intervalMs: 5000, times: [at], values: () => ({ depth: 77 }) });
    await rollupMetrics(db.pool, new Date(NOW + 4_500));
    const probe = () =>
      db.pool.query(`SELECT depth_max FROM metric_rollups WHERE task = 'idle' AND resolution_s = 10 AND partition = 0 AND bucket = $1`, [new Date(bucketStart(at, 10))]);
    expect((await probe()).rows).toEqual([]);
    await rollupMetrics(db.pool, new Date(NOW + 4_500), { rebuild: true });
    expect((await probe()).rows).toEqual([{ depth_max: 77 }]);
  });
});
