// Rate-held executions (issue #19: "charts of executions held by rate limits per task") on a
// real database: the sampler's rate_held gauge (server/db/write-metric-samples.ts, the
// definition in server/db/read-rate-held.ts) after real claims spent the
// rates, through the roll-ups and the series to the task charts and /metrics. "Time
// passing" is made by moving a scope's TAT back, as engine-rate-limits.test.ts does.
import { describe, it, expect, beforeAll } from 'vitest';
import { testDatabase, type TestDatabase } from './db';
import { applyTasks, fakeCoordinator, foldAllSlotDeltas } from '../support/engine-fixtures';
import { enqueue } from '../../server/services/enqueue';
import { claimExecutions } from '../../server/db/claim-executions';
import { writeMetricSamples } from '../../server/db/write-metric-samples';
import { rollupMetrics } from '../../server/control-plane/services/rollup-metrics';
import { getTaskCharts } from '../../server/presenters/task-metrics';
import { controlPlaneMetricsText } from '../../server/presenters/control-plane-metrics';

let db: TestDatabase;
let coord: string;
const HOUR = 3_600_000;

/** Moves a scope's TAT (and its parked rows' release time) back by `ms`: the key as it will be `ms` later. */
const elapse = (task: string, key: string, ms: number) =>
  db.pool.query('UPDATE rate_state SET tat_ms = tat_ms - $3, parked_until = parked_until - $3 WHERE task = $1 AND group_key = $2', [task, key, ms]);

/** The task totals' rate_held of the latest sample per task, and the per-partition rows' values. */
async function latestSamples() {
  const r = await db.pool.query<{ task: string; partition: number; rate_held: string | null; depth: string }>(
    `SELECT task, partition, rate_held, depth FROM metric_samples
     WHERE at = (SELECT max(at) FROM metric_samples) ORDER BY task, partition`,
  );
  const total = (task: string) => {
    const row = r.rows.find((x) => x.task === task && x.partition === -1);
    return row && { rateHeld: row.rate_held === null ? null : Number(row.rate_held), depth: Number(row.depth) };
  };
  return { total, partitionValues: r.rows.filter((x) => x.partition >= 0).map((x) => x.rate_held) };
}

/** Each scope's allowance now, as the claim computes it. */
async function allowances(task: string) {
  const r = await db.pool.query<{ scope: string; a: number }>(
    `SELECT rs.group_name || '=' || rs.group_key AS scope,
            sluice_rate_allowance(CASE WHEN rs.group_name = '' THEN rt.rate -> 'task' ELSE sluice_key_rate(rt.groups, rs.group_name, rs.group_key) END,
                                  rs.tat_ms, extract(epoch FROM clock_timestamp()) * 1000) AS a
     FROM rate_state rs JOIN task_runtime rt ON rt.task = rs.task WHERE rs.task = $1 ORDER BY 1`,
    [task],
  );
  return Object.fromEntries(r.rows.map((x) => [x.scope, Number(x.a)]));
}

// group_slots.queued once the claims' logged moves are folded (as the coordinators do)
async function queued(task: string, key: string): Promise<number> {
  await foldAllSlotDeltas(db.pool);
  return Number((await db.pool.query(`SELECT queued FROM group_slots WHERE task = $1 AND group_key = $2`, [task, key])).rows[0]?.queued ?? 0);
}

beforeAll(async () => {
  db = await testDatabase();
  await applyTasks(db.pool, [
    // per-key rate: an idle key starts burst + 1 = 3 at once, then one an hour
    { name: 'held-keys', partitions: 2, concurrency: 100, groups: [{ name: 'tenant', limit: 100, keyPath: 'tenant', rate: { limit: 1, per: HOUR, burst: 2 } }] },
    // the task's own rate (2 at once, then one an hour) and a key rate that holds the same rows
    { name: 'held-task', partitions: 1, concurrency: 100, rate: { limit: 1, per: HOUR, burst: 1 }, groups: [{ name: 'tenant', limit: 100, keyPath: 'tenant', rate: { limit: 1, per: HOUR, burst: 1 } }] },
    { name: 'no-rate', partitions: 2, concurrency: 100 },
    // two rated groups: each row carries one key of each
    {
      name: 'held-two',
      partitions: 1,
      concurrency: 100,
      groups: [
        { name: 'tenant', limit: 100, keyPath: 'tenant', rate: { limit: 1, per: HOUR, burst: 0 } },
        { name: 'region', limit: 100, keyPath: 'region', rate: { limit: 1, per: HOUR, burst: 0 } },
      ],
    },
  ]);
});

describe('the rate_held gauge', () => {
  it("counts a key's queued rows (parked ones included) while its allowance is negative, 0 for a key with room and for a task without rates", async () => {
    coord = await fakeCoordinator(db.pool, ['held-keys', 'held-task', 'no-rate', 'held-two']);
    await enqueue(db.pool, 'held-keys', Array.from({ length: 10 }, () => ({ payload: { tenant: 'acme' } })));
    await enqueue(db.pool, 'held-keys', [{ payload: { tenant: 'globex' } }]);
    const first = await claimExecutions(db.pool, coord, 'held-keys', 50, 60_000);
    expect(first).toHaveLength(4); // acme's burst + 1, globex's one row
    // globex has tokens left (allowance 1) and rows queued after the claim: they wait on no rate
    await enqueue(db.pool, 'held-keys', Array.from({ length: 4 }, () => ({ payload: { tenant: 'globex' } })));
    // a second claim parks acme's rows on its rate ('rate:tenant=acme') and takes 2 of globex's
    const second = await claimExecutions(db.pool, coord, 'held-keys', 50, 60_000);
    expect(second.map((e) => (e.payload as { tenant: string }).tenant)).toEqual(['globex', 'globex']);
    const parked = await db.pool.query(`SELECT count(*)::int AS n FROM executions WHERE task = 'held-keys' AND waiting_on = 'rate:tenant=acme'`);
    expect(parked.rows[0].n).toBe(7);
    const a = await allowances('held-keys');
    expect(a['tenant=acme']).toBeLessThan(0);
    expect(a['tenant=globex']).toBeLessThan(0); // globex spent its 3 too…
    // …so move globex two intervals on: allowance 1, two starts free, 2 rows queued (not parked)
    await elapse('held-keys', 'globex', 2 * HOUR + 1000);
    expect((await allowances('held-keys'))['tenant=globex']).toBeGreaterThanOrEqual(1);
    const globexParked = await db.pool.query(`SELECT parked_until FROM rate_state WHERE task = 'held-keys' AND group_key = 'globex'`);
    expect(globexParked.rows[0].parked_until).toBeNull();
    expect(await queued('held-keys', 'acme')).toBe(7);
    expect(await queued('held-keys', 'globex')).toBe(2);

    await enqueue(db.pool, 'held-task', Array.from({ length: 5 }, () => ({ payload: { tenant: 'acme' } })));
    expect(await claimExecutions(db.pool, coord, 'held-task', 50, 60_000)).toHaveLength(2);
    const t = await allowances('held-task');
    expect(t['=']).toBeLessThan(0);
    expect(t['tenant=acme']).toBeLessThan(0);
    await enqueue(db.pool, 'no-rate', Array.from({ length: 4 }, (_, i) => ({ payload: { i } })));
    await enqueue(db.pool, 'held-two', Array.from({ length: 4 }, () => ({ payload: { tenant: 'acme', region: 'eu' } })));
    expect(await claimExecutions(db.pool, coord, 'held-two', 50, 60_000)).toHaveLength(1);
    expect(await queued('held-two', 'acme')).toBe(3);
    expect(await queued('held-two', 'eu')).toBe(3);

    // the sample reads no executions: rate_state, group_slots and the counters only (this
    // transaction's own table statistics, on its backend)
    const c = await db.pool.connect();
    try {
      // (the view holds the backend's counts not yet flushed, earlier transactions' too:
      // both reads inside one transaction, which flushes nothing before it ends)
      const scans = async () =>
        Number((await c.query(`SELECT seq_scan + coalesce(idx_scan, 0) AS n FROM pg_stat_xact_user_tables WHERE relname = 'executions'`)).rows[0].n);
      await foldAllSlotDeltas(c);
      await c.query('BEGIN');
      const before = await scans();
      await writeMetricSamples(c);
      expect(await scans()).toBe(before);
      await c.query('COMMIT');
    } finally {
      c.release();
    }
    const s = await latestSamples();
    expect(s.total('held-keys')).toEqual({ rateHeld: 7, depth: 9 }); // acme's 7; globex's 2 have room
    // the task rate holds all 3 rows; acme's key rate holds the same 3: counted once
    expect(s.total('held-task')).toEqual({ rateHeld: 3, depth: 3 });
    expect(s.total('no-rate')).toEqual({ rateHeld: 0, depth: 4 });
    // both keys of the same 3 rows held (3 + 3 in their counters): 3 rows, not 6
    expect(s.total('held-two')).toEqual({ rateHeld: 3, depth: 3 });
    // per partition: not measured (group_slots and rate_state are per task)
    expect(s.partitionValues.length).toBe(6);
    expect(s.partitionValues.every((v) => v === null)).toBe(true);

    // /metrics says the same number
    const text = await controlPlaneMetricsText(db.pool);
    expect(text).toMatch(/^sluice_task_rate_held_executions\{task="held-keys"\} 7$/m);
    expect(text).toMatch(/^sluice_task_rate_held_executions\{task="held-task"\} 3$/m);
    expect(text).toMatch(/^sluice_task_rate_held_executions\{task="held-two"\} 3$/m);
    expect(text).not.toMatch(/sluice_task_rate_held_executions\{task="no-rate"\}/);
  });

  it('as the key gains allowance: its queued rows beyond the starts it has free; a key with parked rows stays bound past 1', async () => {
    await elapse('held-keys', 'acme', HOUR + 1000);
    const a = (await allowances('held-keys'))['tenant=acme']!;
    expect(a).toBeGreaterThanOrEqual(0);
    expect(a).toBeLessThan(1);
    await foldAllSlotDeltas(db.pool);
    await writeMetricSamples(db.pool);
    expect((await latestSamples()).total('held-keys')).toEqual({ rateHeld: 6, depth: 9 }); // one start free

    // two starts free (allowance in [1, 2)), its 7 rows still parked on the rate: 5 held
    await elapse('held-keys', 'acme', HOUR);
    expect((await allowances('held-keys'))['tenant=acme']).toBeGreaterThanOrEqual(1);
    const parked = await db.pool.query(`SELECT parked_until IS NOT NULL AS p FROM rate_state WHERE task = 'held-keys' AND group_key = 'acme'`);
    expect(parked.rows[0].p).toBe(true);
    await foldAllSlotDeltas(db.pool);
    await writeMetricSamples(db.pool);
    expect((await latestSamples()).total('held-keys')).toEqual({ rateHeld: 5, depth: 9 });

    // the claim at the key's slot releases and starts those 2 (and globex's 2, which had room)
    const got = await claimExecutions(db.pool, coord, 'held-keys', 50, 60_000);
    expect(got.map((e) => (e.payload as { tenant: string }).tenant).sort()).toEqual(['acme', 'acme', 'globex', 'globex']);
    expect((await allowances('held-keys'))['tenant=acme']).toBeLessThan(0);
    await foldAllSlotDeltas(db.pool);
    await writeMetricSamples(db.pool);
    expect((await latestSamples()).total('held-keys')).toEqual({ rateHeld: 5, depth: 5 });
    expect(await queued('held-keys', 'acme')).toBe(5);
  });

  it("the task's own rate with one start free: every row but that one", async () => {
    await db.pool.query(`UPDATE rate_state SET tat_ms = tat_ms - $1 WHERE task = 'held-task'`, [HOUR + 1000]);
    const t = await allowances('held-task');
    expect(t['=']).toBeGreaterThanOrEqual(0);
    expect(t['=']).toBeLessThan(1);
    await foldAllSlotDeltas(db.pool);
    await writeMetricSamples(db.pool);
    // the task rate leaves 2 of 3 out, acme's key rate (same allowance) 2 of its 3: 2, once
    expect((await latestSamples()).total('held-task')).toEqual({ rateHeld: 2, depth: 3 });
  });
});

describe('rate_held through the roll-ups to the charts', () => {
  it('each resolution keeps the max per bucket; the series and the task charts carry it; only rated tasks chart it', async () => {
    const now = new Date(Date.now() + 20_000);
    await rollupMetrics(db.pool, now);
    // what each 10 s / 60 s bucket must hold: the max of the task total's samples in it
    for (const res of [10, 60]) {
      const want = await db.pool.query(
        `SELECT task, date_bin(make_interval(secs => $1::int), at, timestamptz 'epoch') AS b, max(rate_held)::int AS m
         FROM metric_samples WHERE partition = -1 GROUP BY 1, 2 ORDER BY 1, 2`,
        [res],
      );
      const got = await db.pool.query(
        `SELECT r.task, r.bucket AS b, r.rate_held_max::int AS m, s.rate_held::int AS series
         FROM metric_rollups r JOIN metric_rollup_series s USING (resolution_s, task, bucket)
         WHERE r.resolution_s = $1 AND r.partition = -1 ORDER BY 1, 2`,
        [res],
      );
      expect(got.rows.map((x) => ({ task: x.task, b: x.b, m: x.m }))).toEqual(want.rows);
      expect(got.rows.every((x) => x.series === x.m)).toBe(true);
      // per-partition buckets: nothing measured, nothing invented
      const parts = await db.pool.query(`SELECT count(*)::int AS n FROM metric_rollups WHERE resolution_s = $1 AND partition >= 0 AND rate_held_max IS NOT NULL`, [res]);
      expect(parts.rows[0].n).toBe(0);
    }
    const heldMax = (await db.pool.query(`SELECT max(rate_held_max)::int AS m FROM metric_rollups WHERE resolution_s = 300 AND task = 'held-keys'`)).rows[0].m;
    expect(heldMax).toBe(7);

    const keys = await getTaskCharts(db.pool, { task: 'held-keys', range: '1h' }, now);
    expect(keys.rateLimited).toBe(true);
    const values = keys.points.map((p) => p.rateHeld).filter((v): v is number => v !== null);
    expect(Math.max(...values)).toBe(7);
    const task = await getTaskCharts(db.pool, { task: 'held-task', range: '1h' }, now);
    expect(task.rateLimited).toBe(true);
    expect(Math.max(...task.points.map((p) => p.rateHeld ?? -1))).toBe(3);
    const plain = await getTaskCharts(db.pool, { task: 'no-rate', range: '1h' }, now);
    expect(plain.rateLimited).toBe(false);
    expect(plain.points.some((p) => p.rateHeld === 0)).toBe(true);
  });
});
