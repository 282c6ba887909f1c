// Maintenance services, each run once through the runner (row lock + interval claim):
// reconciler repairs injected drift and logs it, lease rescuer, slot fold, slot GC, spill drainer,
// stale-member cleanup, metrics sampler (deltas + percentiles, no executions scan),
// retention; and two runners never run the same service at once.
import { describe, it, expect, beforeAll } from 'vitest';
import { testDatabase, type TestDatabase } from './db';
import { applyTasks, fakeCoordinator } from '../support/engine-fixtures';
import { enqueue } from '../../server/services/enqueue';
import { claimExecutions } from '../../server/db/claim-executions';
import { finishExecutions } from '../../server/db/finish-executions';
import { runServiceOnce } from '../../server/db/maintenance-runner';
import { reconciler } from '../../server/coordinator/maintenance/reconciler';
import { leaseRescuer } from '../../server/coordinator/maintenance/lease-rescuer';
import { slotGc } from '../../server/coordinator/maintenance/slot-gc';
import { slotFold } from '../../server/coordinator/maintenance/slot-fold';
import { staleMemberCleanup } from '../../server/coordinator/maintenance/stale-members';
import { metricsSampler } from '../../server/coordinator/maintenance/metrics-sampler';
import { retention } from '../../server/coordinator/maintenance/retention';
import { resolveRetention } from '../../server/core/retention-policy';
import { spillDrainer } from '../../server/coordinator/maintenance/spill-drainer';
import type { MaintenanceService } from '../../server/coordinator/maintenance/service';
import { histogramQuantile } from '../../server/db/write-metric-samples';
import { cancelExecutions } from '../../server/db/cancel-executions';
import { withTransaction } from '../../server/db/pool';
import { foldSlotDeltas } from '../../server/db/fold-slot-deltas';
import { rollupMetricSamples } from '../../server/db/rollup-metric-samples';
import { rollupMetricRollups } from '../../server/db/rollup-metric-rollups';
import { rollupMetricSeries } from '../../server/db/rollup-metric-series';

let db: TestDatabase;
let coord: string;
beforeAll(async () => {
  db = await testDatabase();
  await applyTasks(db.pool, [
    { name: 'mt', partitions: 2, concurrency: 20, groups: [{ name: 'tenant', limit: 5, keyPath: 't' }], retry: { maxAttempts: 2, baseDelayMs: 0, maxDelayMs: 0 } },
    { name: 'sp', partitions: 1, backpressure: { maxDepth: 5, policy: 'spill' } },
  ]);
  coord = await fakeCoordinator(db.pool, ['mt', 'sp']);
});

const run = (svc: MaintenanceService, staleMs = 60_000) => runServiceOnce(db.pool, svc, { intervalMs: 0 }, { coordinatorId: coord, staleMs, log: () => {} });

describe('maintenance services', () => {
  it('reconciler repairs injected drift in every counter and logs each mismatch', async () => {
    await enqueue(db.pool, 'mt', Array.from({ length: 10 }, (_, i) => ({ payload: { t: `x${i % 2}` } })));
    await claimExecutions(db.pool, coord, 'mt', 3, 60_000);
    await foldSlotDeltas(db.pool, 'mt'); // the enqueue's and the claim's moves, as a member folds them
    await db.pool.query(`UPDATE task_counters SET in_flight = 17 WHERE task = 'mt'`);
    await db.pool.query(`UPDATE partition_stats SET depth = depth + 40, in_flight = 9 WHERE task = 'mt' AND partition = 1`);
    await db.pool.query(`UPDATE group_slots SET in_flight = 4, queued = 0 WHERE task = 'mt' AND group_key = 'x0'`);
    await db.pool.query(`DELETE FROM group_slots WHERE task = 'mt' AND group_key = 'x1'`);
    const r = await run(reconciler);
    expect(r.ran).toBe(true);
    const log = await db.pool.query(`SELECT counter, partition, group_key, recorded, actual FROM reconcile_log WHERE task = 'mt' ORDER BY counter, partition, group_key`);
    const counters = log.rows.map((x: { counter: string }) => x.counter);
    expect(counters).toEqual(expect.arrayContaining(['task.in_flight', 'partition.depth', 'partition.in_flight', 'group.in_flight', 'group.queued']));
    expect(log.rows.find((x: { counter: string }) => x.counter === 'task.in_flight')).toMatchObject({ recorded: 17, actual: 3 });
    const truth = await db.pool.query(`SELECT
        (SELECT in_flight FROM task_counters WHERE task = 'mt') AS tf,
        (SELECT sum(depth)::int FROM partition_stats WHERE task = 'mt') AS d,
        (SELECT sum(in_flight)::int FROM partition_stats WHERE task = 'mt') AS pf,
        (SELECT sum(in_flight + queued)::int FROM group_slots WHERE task = 'mt') AS g`);
    expect(truth.rows[0]).toEqual({ tf: 3, d: 7, pf: 3, g: 10 });
    // a second pass finds nothing
    await db.pool.query('DELETE FROM reconcile_log');
    await run(reconciler);
    expect(Number((await db.pool.query('SELECT count(*) AS n FROM reconcile_log')).rows[0].n)).toBe(0);
  });

  it('lease rescuer requeues expired leases as failed attempts; stale members lose their partitions', async () => {
    await db.pool.query(`UPDATE executions SET lease_expires_at = now() - interval '1 second' WHERE task = 'mt' AND state = 'running'`);
    const r = await run(leaseRescuer);
    expect(r.result).toMatchObject({ rescued: 3 });
    const rows = await db.pool.query(`SELECT count(*)::int AS n FROM executions WHERE task = 'mt' AND state = 'running'`);
    expect(rows.rows[0].n).toBe(0);
    const att = await db.pool.query(`SELECT count(*)::int AS n FROM execution_attempts WHERE task = 'mt' AND error LIKE 'lease expired%'`);
    expect(att.rows[0].n).toBe(3);
    await db.pool.query(`UPDATE coordinators SET last_heartbeat_at = now() - interval '1 minute' WHERE id = $1`, [coord]);
    const s = await run(staleMemberCleanup(100, 3_600_000), 1000);
    expect(s.result).toMatchObject({ stopped: 1 });
    expect(Number((await db.pool.query(`SELECT count(*) AS n FROM partition_owners WHERE owner = $1`, [coord])).rows[0].n)).toBe(0);
    coord = await fakeCoordinator(db.pool, ['mt', 'sp']);
  });

  it('metrics sampler writes deltas and latency percentiles from counters', async () => {
    await run(metricsSampler); // establishes the cursor
    const got = await claimExecutions(db.pool, coord, 'mt', 20, 60_000);
    await finishExecutions(db.pool, 'mt', got.map((e) => ({ id: e.id, leaseToken: e.leaseToken, outcome: 'succeeded' as const })));
    await enqueue(db.pool, 'mt', [{ payload: { t: 'y' } }, { payload: { t: 'y' } }]);
    // The claims' and finishes' per-key moves are logged (slot_deltas) until folded; no
    // coordinator runs here, so the slot-fold service adds them (the rescuer's too).
    const logged = Number((await db.pool.query(`SELECT count(*) AS n FROM slot_deltas WHERE task = 'mt'`)).rows[0].n);
    expect(logged).toBeGreaterThan(0);
    expect((await run(slotFold)).result).toEqual({ tasks: 1, folded: logged });
    expect(Number((await db.pool.query(`SELECT count(*) AS n FROM slot_deltas`)).rows[0].n)).toBe(0);
    const r = await run(metricsSampler);
    expect(r.ran).toBe(true);
    const total = await db.pool.query(`SELECT * FROM metric_samples WHERE task = 'mt' AND partition = -1 ORDER BY at DESC LIMIT 1`);
    expect(total.rows[0]).toMatchObject({ processed: 10, arrivals: 2, depth: 2, in_flight: 0 });
    expect(total.rows[0].latency_p50_ms).toBeGreaterThan(0);
    expect(total.rows[0].latency_p99_ms).toBeGreaterThanOrEqual(total.rows[0].latency_p50_ms);
    const parts = await db.pool.query(`SELECT sum(processed)::int AS p FROM metric_samples WHERE task = 'mt' AND partition >= 0 AND at = $1`, [total.rows[0].at]);
    expect(parts.rows[0].p).toBe(10);
    const top = await db.pool.query(`SELECT group_key, queued FROM metric_top_keys WHERE task = 'mt' AND at = $1`, [total.rows[0].at]);
    expect(top.rows).toEqual([{ group_key: 'y', queued: 2 }]);
    expect(histogramQuantile([0, 0, 10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], 0.5)).toBeGreaterThan(2);
    expect(histogramQuantile(new Array(17).fill(0), 0.5)).toBeNull();
  });

  it('slot GC removes idle slot rows only; retention deletes old succeeded executions', async () => {
    const before = Number((await db.pool.query(`SELECT count(*) AS n FROM group_slots WHERE task = 'mt' AND in_flight = 0 AND queued = 0`)).rows[0].n);
    expect(before).toBeGreaterThan(0);
    const r = await run(slotGc(0));
    expect(r.result).toMatchObject({ deleted: before });
    expect(Number((await db.pool.query(`SELECT count(*) AS n FROM group_slots WHERE task = 'mt'`)).rows[0].n)).toBe(1); // 'y' still queued
    await db.pool.query(`UPDATE executions SET finished_at = now() - interval '2 days' WHERE task = 'mt' AND state = 'succeeded'`);
    const ret = await run(retention(resolveRetention({}, {}), 7 * 24 * 3_600_000));
    expect(ret.result).toMatchObject({ executions: { succeeded: 10, canceled: 0, dead: 0 }, complete: true });
  });

  it('spill drainer moves parked executions back as depth falls', async () => {
    await enqueue(db.pool, 'sp', Array.from({ length: 8 }, (_, i) => ({ payload: { i } })));
    expect(Number((await db.pool.query(`SELECT count(*) AS n FROM overflow`)).rows[0].n)).toBe(3);
    const got = await claimExecutions(db.pool, coord, 'sp', 5, 60_000);
    await finishExecutions(db.pool, 'sp', got.map((e) => ({ id: e.id, leaseToken: e.leaseToken, outcome: 'succeeded' as const })));
    const r = await run(spillDrainer);
    expect(r.result).toMatchObject({ drained: 3 });
  });

  it('only one runner runs a service at a time, and at most once per interval', async () => {
    let concurrent = 0;
    let max = 0;
    const slow: MaintenanceService = {
      name: 'slow-test',
      intervalMs: 1000,
      async run() {
        concurrent++;
        max = Math.max(max, concurrent);
        await new Promise((r) => setTimeout(r, 150));
        concurrent--;
        return {};
      },
    };
    const runs = await Promise.all(Array.from({ length: 4 }, () => runServiceOnce(db.pool, slow, { intervalMs: 60_000 }, { coordinatorId: coord, staleMs: 60_000, log: () => {} })));
    expect(max).toBe(1);
    expect(runs.filter((r) => r.ran)).toHaveLength(1);
    const again = await runServiceOnce(db.pool, slow, { intervalMs: 60_000 }, { coordinatorId: coord, staleMs: 60_000, log: () => {} });
    expect(again.ran).toBe(false);
  });

  it('a service paced by its cost waits paceFactor × its last run, cluster-wide, when that is longer than its interval', async () => {
    const paced = (name: string, paceFactor?: number): MaintenanceService => ({
      name,
      intervalMs: 20,
      ...(paceFactor === undefined ? {} : { paceFactor }),
      async run() {
        await new Promise((r) => setTimeout(r, 150));
        return {};
      },
    });
    const base = { coordinatorId: coord, staleMs: 60_000, log: () => {} };
    const once = (svc: MaintenanceService) => runServiceOnce(db.pool, svc, { intervalMs: 20 }, base);
    const slow = paced('paced-test', 10);
    const plain = paced('unpaced-test');
    expect((await once(slow)).ran).toBe(true);
    expect((await once(plain)).ran).toBe(true);
    await new Promise((r) => setTimeout(r, 300)); // past the 20 ms interval, well short of 10 × 150 ms
    expect((await once(plain)).ran).toBe(true);
    expect((await once(slow)).ran).toBe(false);
    // the recorded duration is what it waits on: 10 × ≥ 150 ms from the last start
    const row = await db.pool.query(`SELECT last_duration_ms AS d, extract(epoch FROM now() - last_started_at) * 1000 AS since FROM maintenance_runs WHERE name = 'paced-test'`);
    expect(Number(row.rows[0].d)).toBeGreaterThanOrEqual(150);
    await new Promise((r) => setTimeout(r, Math.max(0, 10 * Number(row.rows[0].d) - Number(row.rows[0].since)) + 50));
    expect((await once(slow)).ran).toBe(true);
    // "run now" (interval 0) ignores the pace as it ignores the interval
    expect((await runServiceOnce(db.pool, slow, { intervalMs: 0 }, base)).ran).toBe(true);
  });

  it('a service that commits in steps holds a lease: one run at a time, a dead holder blocks until it expires, a failure is recorded', async () => {
    let concurrent = 0;
    let max = 0;
    let fail = false;
    const steps: MaintenanceService = {
      name: 'steps-test',
      intervalMs: 1000,
      mode: 'steps',
      leaseMs: 30_000,
      async run({ db: q }) {
        concurrent++;
        max = Math.max(max, concurrent);
        // commits on its own: visible to others before the run ends
        await q.query(`INSERT INTO reconcile_log (task, counter, recorded, actual) VALUES ('steps-test', 'x', 0, 0)`);
        await new Promise((r) => setTimeout(r, 150));
        concurrent--;
        if (fail) throw new Error('boom');
        return { ok: true };
      },
    };
    const base = { coordinatorId: coord, staleMs: 60_000, log: () => {} };
    const runs = await Promise.all(Array.from({ length: 4 }, () => runServiceOnce(db.pool, steps, { intervalMs: 0 }, base)));
    expect(max).toBe(1);
    expect(runs.filter((r) => r.ran)).toEqual([{ ran: true, result: { ok: true } }]);
    const row = async () => (await db.pool.query(`SELECT runs::int, last_error, lease_until FROM maintenance_runs WHERE name = 'steps-test'`)).rows[0];
    expect(await row()).toMatchObject({ runs: 1, last_error: null, lease_until: null });
    // a process died mid-run: its lease keeps everyone out until it expires
    await db.pool.query(`UPDATE maintenance_runs SET lease_owner = 'dead', lease_until = now() + interval '1 minute' WHERE name = 'steps-test'`);
    expect((await runServiceOnce(db.pool, steps, { intervalMs: 0 }, base)).ran).toBe(false);
    await db.pool.query(`UPDATE maintenance_runs SET lease_until = now() - interval '1 second' WHERE name = 'steps-test'`);
    fail = true;
    const failed = await runServiceOnce(db.pool, steps, { intervalMs: 0 }, base);
    expect(failed).toEqual({ ran: true, error: 'boom' });
    expect(await row()).toMatchObject({ runs: 2, last_error: 'boom', lease_until: null });
    // what it committed before failing stays (steps are not rolled back)
    expect((await db.pool.query(`SELECT count(*)::int AS n FROM reconcile_log WHERE task = 'steps-test'`)).rows[0].n).toBe(2);
  });

  it('a failing transaction service rolls back its work and records the error', async () => {
    const bad: MaintenanceService = {
      name: 'tx-fail-test',
      intervalMs: 1000,
      async run({ db: q }) {
        await q.query(`INSERT INTO reconcile_log (task, counter, recorded, actual) VALUES ('tx-fail-test', 'x', 0, 0)`);
        throw new Error('nope');
      },
    };
    expect(await run(bad)).toEqual({ ran: true, error: 'nope' });
    expect((await db.pool.query(`SELECT count(*)::int AS n FROM reconcile_log WHERE task = 'tx-fail-test'`)).rows[0].n).toBe(0);
    const r = await db.pool.query(`SELECT runs::int, last_error, last_coordinator FROM maintenance_runs WHERE name = 'tx-fail-test'`);
    expect(r.rows).toEqual([{ runs: 1, last_error: 'nope', last_coordinator: coord }]);
  });
});

describe('canceled executions in the sampled metrics', () => {
  it('the sampler counts them per partition and task, the roll-ups sum them, as they do succeeded and dead', async () => {
    await run(metricsSampler); // cursor at the current totals
    const e = await enqueue(db.pool, 'mt', [{ payload: { t: 'cx' } }, { payload: { t: 'cx' } }, { payload: { t: 'cx' } }]);
    const ids = e.executions.map((x) => x.id!);
    const out = await withTransaction(db.pool, (c) => cancelExecutions(c, 'mt', ids));
    expect(out).toHaveLength(3);
    await new Promise((r) => setTimeout(r, 5)); // a sample strictly after the previous one
    expect((await run(metricsSampler)).ran).toBe(true);
    const total = await db.pool.query(`SELECT * FROM metric_samples WHERE task = 'mt' AND partition = -1 ORDER BY at DESC LIMIT 1`);
    expect(total.rows[0]).toMatchObject({ canceled: 3, processed: 0, dead_lettered: 0, arrivals: 3 });
    const parts = await db.pool.query(`SELECT sum(canceled)::int AS c FROM metric_samples WHERE task = 'mt' AND partition >= 0 AND at = $1`, [total.rows[0].at]);
    expect(parts.rows[0].c).toBe(3);
    // nothing more canceled: the next sample says 0 (a delta, not the total)
    await new Promise((r) => setTimeout(r, 5));
    await run(metricsSampler);
    const next = await db.pool.query(`SELECT canceled FROM metric_samples WHERE task = 'mt' AND partition = -1 ORDER BY at DESC LIMIT 1`);
    expect(Number(next.rows[0].canceled)).toBe(0);
    // roll-ups: 10 s buckets from the samples, 60 s from those, and the per-task series
    const sampled = Number((await db.pool.query(`SELECT sum(canceled) AS c FROM metric_samples WHERE task = 'mt' AND partition = -1`)).rows[0].c);
    await rollupMetricSamples(db.pool, 10, new Date(0));
    await rollupMetricRollups(db.pool, 60, 10, new Date(0));
    await rollupMetricSeries(db.pool, 60, new Date(0));
    for (const res of [10, 60]) {
      const r = await db.pool.query(`SELECT sum(canceled) AS c FROM metric_rollups WHERE task = 'mt' AND partition = -1 AND resolution_s = $1`, [res]);
      expect(Number(r.rows[0].c), `${res}s`).toBe(sampled);
    }
    const series = await db.pool.query(`SELECT sum(canceled) AS c FROM metric_rollup_series WHERE task = 'mt' AND resolution_s = 60`);
    expect(Number(series.rows[0].c)).toBe(sampled);
    expect(sampled).toBeGreaterThanOrEqual(3);
  });
});
