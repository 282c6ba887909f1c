// SQL-level claim/finish tests: several pools claim concurrently through sluice_claim and
// finish through sluice_finish, with no coordinator process in between, so what is
// checked is the database's own guarantee.
import { describe, it, expect, beforeAll } from 'vitest';
import pg from 'pg';
import { testDatabase, type TestDatabase } from './db';
import { applyTasks, fakeCoordinator, sleep } from '../support/engine-fixtures';
import { enqueue } from '../../server/services/enqueue';
import { claimExecutions, type ClaimedExecution } from '../../server/db/claim-executions';
import { finishExecutions } from '../../server/db/finish-executions';
import { createPool } from '../../server/db/pool';
import { foldSlotDeltas } from '../../server/db/fold-slot-deltas';

let db: TestDatabase;
beforeAll(async () => {
  db = await testDatabase();
});

async function counters(task: string) {
  const t = await db.pool.query('SELECT in_flight FROM task_counters WHERE task = $1', [task]);
  await foldSlotDeltas(db.pool, task); // the claims' and finishes' logged moves, as a coordinator folds them
  const g = await db.pool.query('SELECT group_name, group_key, in_flight, queued FROM group_slots WHERE task = $1 ORDER BY 1, 2', [task]);
  return { inFlight: t.rows[0].in_flight as number, groups: g.rows };
}

/** Claims `task` from every pool in parallel (batches of 1…maxBatch, a short random
 *  "handler" time, then a finish) until all stay idle, while a sampler reads the running
 *  rows in one snapshot at a time. Every running count over `limitOf(key)` or the task's
 *  `concurrency`, and every execution claimed twice, is a violation. */
async function claimInParallel(task: string, pools: pg.Pool[], coords: string[], limitOf: (k: string) => number, concurrency: number, maxBatch: number) {
  const running = new Map<string, number>();
  let maxTask = 0;
  const maxKey = new Map<string, number>();
  const violations: string[] = [];
  let done = 0;
  const seen = new Set<number>();
  const keys = (e: ClaimedExecution) => Object.entries(e.groups).map(([g, k]) => `${g}=${k}`);
  async function worker(pool: pg.Pool, coord: string) {
    let idle = 0;
    while (idle < 30) {
      const got = await claimExecutions(pool, coord, task, 1 + Math.floor(Math.random() * maxBatch), 60_000);
      if (got.length === 0) {
        idle++;
        await sleep(3);
        continue;
      }
      idle = 0;
      for (const e of got) {
        for (const k of [...keys(e), '*']) running.set(k, (running.get(k) ?? 0) + 1);
        for (const k of keys(e)) {
          maxKey.set(k, Math.max(maxKey.get(k) ?? 0, running.get(k)!));
          if (running.get(k)! > limitOf(k)) violations.push(`${k} ran ${running.get(k)}`);
        }
        maxTask = Math.max(maxTask, running.get('*')!);
        if (running.get('*')! > concurrency) violations.push(`task ran ${running.get('*')}`);
        if (seen.has(e.id)) violations.push(`execution ${e.id} claimed twice`);
        seen.add(e.id);
      }
      await sleep(Math.random() * 4);
      // The handler "ends" before the finish call, so the in-memory count never lags
      // behind the database's: any overshoot it reports is real.
      for (const e of got) for (const k of [...keys(e), '*']) running.set(k, running.get(k)! - 1);
      const res = await finishExecutions(pool, task, got.map((e) => ({ id: e.id, leaseToken: e.leaseToken, outcome: 'succeeded' as const })));
      done += res.size;
    }
  }
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const r = await db.pool.query<{ k: string; n: number }>(
        `SELECT k, count(*)::int AS n FROM executions, unnest(group_keys) k WHERE task = $1 AND state = 'running' GROUP BY k
         UNION ALL SELECT '*', count(*)::int FROM executions WHERE task = $1 AND state = 'running'`,
        [task],
      );
      for (const { k, n } of r.rows) if (n > (k === '*' ? concurrency : limitOf(k))) violations.push(`snapshot ${k}: ${n}`);
      await sleep(2);
    }
  })();
  await Promise.all(pools.map((p, i) => worker(p, coords[i]!)));
  sampling = false;
  await sampler;
  await Promise.all(pools.map((p) => p.end()));
  return { violations, done, maxKey, maxTask };
}

describe('claim limits under concurrent claimers', () => {
  it('never exceeds the task limit, per-key limits or overrides, across 4 pools', async () => {
    await applyTasks(db.pool, [
      {
        name: 'limits',
        partitions: 4,
        concurrency: 12,
        groups: [
          { name: 'tenant', limit: 3, keyPath: 'tenant', overrides: { big: 5 } },
          { name: 'message', limit: 1, keyPath: 'msg' },
        ],
      },
    ]);
    const tenants = ['big', 'a', 'b', 'c', 'd', 'e'];
    const inputs = Array.from({ length: 600 }, (_, i) => ({
      payload: { tenant: tenants[i % tenants.length], msg: `m${i % 37}`, i },
    }));
    await enqueue(db.pool, 'limits', inputs);

    const pools = Array.from({ length: 4 }, () => createPool(db.url, 3));
    const coords = await Promise.all(pools.map((_, i) => fakeCoordinator(db.pool, ['limits'], { limits: [i] })));
    const limitOf = (k: string) => (k.startsWith('tenant=') ? (k === 'tenant=big' ? 5 : 3) : 1);
    const { violations, done, maxKey, maxTask } = await claimInParallel('limits', pools, coords, limitOf, 12, 6);
    expect(violations).toEqual([]);
    expect(done).toBe(600);
    expect(maxTask).toBeGreaterThan(3);
    expect(maxTask).toBeLessThanOrEqual(12);
    expect(maxKey.get('tenant=big')).toBeLessThanOrEqual(5);
    const c = await counters('limits');
    expect(c.inFlight).toBe(0);
    expect(c.groups.every((g: { in_flight: number; queued: number }) => g.in_flight === 0 && g.queued === 0)).toBe(true);
    const st = await db.pool.query(`SELECT sum(depth)::int d, sum(in_flight)::int f, sum(po.processed_total)::int p FROM partition_stats ps JOIN partition_outcomes po USING (task, partition) WHERE task = 'limits'`);
    expect(st.rows[0]).toEqual({ d: 0, f: 0, p: 600 });
  }, 60_000);
});

describe('ten groups (seed 001) under concurrent claimers', () => {
  it('keeps every group\'s limit exact, across 4 pools claiming in parallel', async () => {
    const G = 10;
    // group gj: limit 1 + (j % 3), an override on g0; keys per group: 12, 4, 2 for limits
    // 1, 2, 3 so every group reaches its limit; some executions carry no key for some
    // groups (groups are optional per execution).
    const limits = Array.from({ length: G }, (_, j) => 1 + (j % 3));
    const KEYS = [12, 4, 2];
    await applyTasks(db.pool, [
      {
        name: 'ten',
        partitions: 4,
        concurrency: 16,
        groups: limits.map((limit, j) => ({ name: `g${j}`, limit, keyPath: `g${j}`, ...(j === 0 ? { overrides: { k0: 4 } } : {}) })),
      },
    ]);
    const limitOf = (k: string) => {
      if (k === 'g0=k0') return 4;
      return limits[Number(k.slice(1, k.indexOf('=')))]!;
    };
    let seed = 7; // an LCG: the same keys every run
    const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    const inputs = Array.from({ length: 400 }, (_, i) => ({
      payload: Object.fromEntries(
        Array.from({ length: G }, (_, j) => [`g${j}`, `k${Math.floor(rnd() * KEYS[limits[j]! - 1]!)}`]).filter((_, j) => (i + j) % 7 !== 0),
      ),
    }));
    await enqueue(db.pool, 'ten', inputs);
    const pools = Array.from({ length: 4 }, () => createPool(db.url, 3));
    const coords = await Promise.all(pools.map(() => fakeCoordinator(db.pool, ['ten'])));
    const { violations, done, maxKey } = await claimInParallel('ten', pools, coords, limitOf, 16, 8);
    expect(violations).toEqual([]);
    expect(done).toBe(400);
    // every group was claimed under, and the limits were reached (exact, not just never over)
    for (let j = 0; j < G; j++) {
      const reached = [...maxKey].filter(([k]) => k.startsWith(`g${j}=`)).map(([k, n]) => n === limitOf(k));
      expect(reached.length, `g${j}`).toBeGreaterThan(0);
      expect(reached.some(Boolean), `g${j} never reached its limit: ${JSON.stringify([...maxKey].filter(([k]) => k.startsWith(`g${j}=`)))}`).toBe(true);
    }
    const c = await counters('ten');
    expect(c.inFlight).toBe(0);
    expect(c.groups.every((g: { in_flight: number; queued: number }) => g.in_flight === 0 && g.queued === 0)).toBe(true);
    // every move folded (a key whose enqueue, claim and finish summed to 0 in one fold has no row)
    expect(Number((await db.pool.query(`SELECT count(*) AS n FROM slot_deltas WHERE task = 'ten'`)).rows[0].n)).toBe(0);
  }, 90_000);
});

describe('claim semantics', () => {
  it('takes all slots or none, and a saturated key does not block other keys', async () => {
    await applyTasks(db.pool, [
      { name: 'aon', partitions: 1, concurrency: 50, groups: [{ name: 'tenant', limit: 2, keyPath: 't' }, { name: 'message', limit: 1, keyPath: 'm' }] },
    ]);
    const coord = await fakeCoordinator(db.pool, ['aon']);
    // Oldest: 200 executions of tenant "hot" (limit 2), then one of tenant "cold".
    await enqueue(db.pool, 'aon', Array.from({ length: 200 }, (_, i) => ({ payload: { t: 'hot', m: `h${i}` } })));
    await enqueue(db.pool, 'aon', [{ payload: { t: 'cold', m: 'c1' } }]);
    // One round may under-admit (the window can be all "hot"); the next round skips the
    // saturated key in the index scan itself and reaches "cold" behind 198 hot rows.
    const first = await claimExecutions(db.pool, coord, 'aon', 10, 60_000);
    const second = await claimExecutions(db.pool, coord, 'aon', 10, 60_000);
    expect([...first, ...second].map((e) => e.groups.tenant).sort()).toEqual(['cold', 'hot', 'hot']);
    expect(await claimExecutions(db.pool, coord, 'aon', 10, 60_000)).toEqual([]);
    // all-or-nothing: message m=x is busy, tenant "free" is not; the execution needing
    // both must not run and must not hold a tenant slot.
    await enqueue(db.pool, 'aon', [{ payload: { t: 'other', m: 'x' } }]);
    const x1 = await claimExecutions(db.pool, coord, 'aon', 10, 60_000);
    expect(x1.map((e) => e.groups)).toEqual([{ tenant: 'other', message: 'x' }]);
    await enqueue(db.pool, 'aon', [{ payload: { t: 'free', m: 'x' } }]);
    expect(await claimExecutions(db.pool, coord, 'aon', 10, 60_000)).toEqual([]);
    await foldSlotDeltas(db.pool, 'aon');
    const slots = await db.pool.query(`SELECT in_flight, queued FROM group_slots WHERE task = 'aon' AND group_name = 'tenant' AND group_key = 'free'`);
    expect(slots.rows[0]).toEqual({ in_flight: 0, queued: 1 });
    await finishExecutions(db.pool, 'aon', x1.map((e) => ({ id: e.id, leaseToken: e.leaseToken, outcome: 'succeeded' as const })));
    const x2 = await claimExecutions(db.pool, coord, 'aon', 10, 60_000);
    expect(x2.map((e) => e.groups)).toEqual([{ tenant: 'free', message: 'x' }]);
  });

  it('a per-key override beats the group default', async () => {
    await applyTasks(db.pool, [
      { name: 'override', partitions: 2, concurrency: 50, groups: [{ name: 'tenant', limit: 1, keyPath: 't', overrides: { big: 3 } }] },
    ]);
    const coord = await fakeCoordinator(db.pool, ['override']);
    await enqueue(db.pool, 'override', [...Array.from({ length: 5 }, () => ({ payload: { t: 'big' } })), ...Array.from({ length: 5 }, () => ({ payload: { t: 'small' } }))]);
    const got = [];
    for (let i = 0; i < 3; i++) got.push(...(await claimExecutions(db.pool, coord, 'override', 50, 60_000)));
    const byTenant = got.reduce<Record<string, number>>((m, e) => ({ ...m, [e.groups.tenant!]: (m[e.groups.tenant!] ?? 0) + 1 }), {});
    expect(byTenant).toEqual({ big: 3, small: 1 });
  });

  it('an override below the group default holds in one claim, though the default has room for all the key\'s rows', async () => {
    // The ranking skips keys whose running + window rows fit the task's lowest limit
    // (v_minlim in sluice_claim_rows): that lowest limit must count overrides, or `tiny`
    // (2 rows, default 5, override 1) would not be ranked and both would start.
    await applyTasks(db.pool, [
      { name: 'override-low', partitions: 1, concurrency: 50, groups: [{ name: 'tenant', limit: 5, keyPath: 't', overrides: { tiny: 1 } }, { name: 'region', limit: 10, keyPath: 'r' }] },
    ]);
    const coord = await fakeCoordinator(db.pool, ['override-low']);
    await enqueue(db.pool, 'override-low', [
      { payload: { t: 'tiny', r: 'eu' } }, { payload: { t: 'tiny', r: 'us' } },
      { payload: { t: 'big', r: 'eu' } }, { payload: { t: 'big', r: 'us' } },
    ]);
    const got = await claimExecutions(db.pool, coord, 'override-low', 50, 60_000);
    expect(got.map((e) => e.groups.tenant).sort()).toEqual(['big', 'big', 'tiny']);
    expect(await claimExecutions(db.pool, coord, 'override-low', 50, 60_000)).toEqual([]);
  });

  it('a paused task claims nothing', async () => {
    await applyTasks(db.pool, [{ name: 'paused-task', partitions: 1, paused: true }]);
    const coord = await fakeCoordinator(db.pool, ['paused-task']);
    await enqueue(db.pool, 'paused-task', [{ payload: {} }]);
    expect(await claimExecutions(db.pool, coord, 'paused-task', 10, 60_000)).toEqual([]);
    await applyTasks(db.pool, [{ name: 'paused-task', partitions: 1, paused: false }]);
    expect(await claimExecutions(db.pool, coord, 'paused-task', 10, 60_000)).toHaveLength(1);
  });

  it('runs a stream one at a time in enqueue order, and a scheduled retry blocks later ones', async () => {
    await applyTasks(db.pool, [{ name: 'ordered', partitions: 3, concurrency: 10, stream: { keyPath: 's' } }]);
    const coord = await fakeCoordinator(db.pool, ['ordered']);
    for (let i = 0; i < 4; i++) await enqueue(db.pool, 'ordered', [{ payload: { s: 'A', i } }]);
    await enqueue(db.pool, 'ordered', [{ payload: { s: 'B', i: 0 } }]);
    const c1 = await claimExecutions(db.pool, coord, 'ordered', 10, 60_000);
    expect(c1.map((e) => (e.payload as { s: string; i: number }).s + (e.payload as { i: number }).i).sort()).toEqual(['A0', 'B0']);
    const a0 = c1.find((e) => e.streamKey === 'A')!;
    // A0 fails; its retry is scheduled 300 ms out and must block A1..A3.
    await finishExecutions(db.pool, 'ordered', [
      { id: a0.id, leaseToken: a0.leaseToken, outcome: 'retry', runAt: new Date(Date.now() + 300), error: 'boom' },
    ]);
    expect(await claimExecutions(db.pool, coord, 'ordered', 10, 60_000)).toEqual([]);
    await sleep(350);
    const c2 = await claimExecutions(db.pool, coord, 'ordered', 10, 60_000);
    expect(c2.map((e) => [e.id, e.attempts])).toEqual([[a0.id, 2]]);
    const order: number[] = [];
    let cur = c2;
    while (cur.length > 0) {
      expect(cur).toHaveLength(1);
      order.push((cur[0]!.payload as { i: number }).i);
      await finishExecutions(db.pool, 'ordered', [{ id: cur[0]!.id, leaseToken: cur[0]!.leaseToken, outcome: 'succeeded' }]);
      cur = (await claimExecutions(db.pool, coord, 'ordered', 10, 60_000)).filter((e) => e.streamKey === 'A');
    }
    expect(order).toEqual([0, 1, 2, 3]);
  });

  it('fences a late completion from a lost lease', async () => {
    await applyTasks(db.pool, [{ name: 'fenced', partitions: 1, retry: { maxAttempts: 5, baseDelayMs: 0, maxDelayMs: 0 } }]);
    const a = await fakeCoordinator(db.pool, ['fenced']);
    await enqueue(db.pool, 'fenced', [{ payload: { n: 1 } }]);
    const [first] = await claimExecutions(db.pool, a, 'fenced', 1, 60_000);
    // a's heartbeat stops; the rescuer takes the lease back as a failed attempt
    await db.pool.query(`UPDATE coordinators SET last_heartbeat_at = now() - interval '1 hour' WHERE id = $1`, [a]);
    const rescued = await finishExecutions(
      db.pool,
      'fenced',
      [{ id: first!.id, leaseToken: first!.leaseToken, outcome: 'retry', runAt: new Date(), error: 'lease expired' }],
      { onlyExpired: true, staleMs: 5_000 },
    );
    expect(rescued.get(first!.id)).toBe('retry');
    const b = await fakeCoordinator(db.pool, ['fenced']);
    const [second] = await claimExecutions(db.pool, b, 'fenced', 1, 60_000);
    expect(second!.id).toBe(first!.id);
    expect(second!.attempts).toBe(2);
    // the late completion from a's lease matches nothing
    const late = await finishExecutions(db.pool, 'fenced', [{ id: first!.id, leaseToken: first!.leaseToken, outcome: 'succeeded' }]);
    expect(late.size).toBe(0);
    const row = await db.pool.query('SELECT state, attempts, lease_owner FROM executions WHERE id = $1', [first!.id]);
    expect(row.rows[0]).toEqual({ state: 'running', attempts: 2, lease_owner: b });
    expect((await counters('fenced')).inFlight).toBe(1);
    const ok = await finishExecutions(db.pool, 'fenced', [{ id: second!.id, leaseToken: second!.leaseToken, outcome: 'succeeded' }]);
    expect(ok.get(second!.id)).toBe('succeeded');
    const attempts = await db.pool.query('SELECT attempt, error, coordinator_id FROM execution_attempts WHERE execution_id = $1', [first!.id]);
    expect(attempts.rows).toEqual([{ attempt: 1, error: 'lease expired', coordinator_id: a }]);
  });

  it('dead-letters after the last attempt with every attempt kept', async () => {
    await applyTasks(db.pool, [{ name: 'dlq', partitions: 1, retry: { maxAttempts: 2, baseDelayMs: 0, maxDelayMs: 0 } }]);
    const c = await fakeCoordinator(db.pool, ['dlq']);
    const { executions } = await enqueue(db.pool, 'dlq', [{ payload: { x: 1 } }]);
    const id = executions[0]!.id!;
    for (const outcome of ['retry', 'dead'] as const) {
      const [e] = await claimExecutions(db.pool, c, 'dlq', 1, 60_000);
      await finishExecutions(db.pool, 'dlq', [
        { id: e!.id, leaseToken: e!.leaseToken, outcome, runAt: new Date(), error: `fail ${e!.attempts}`, stack: 'Error: x\n  at h (handler.ts:1:1)', fingerprint: 'fp1' },
      ]);
    }
    const dl = await db.pool.query('SELECT task, payload, attempts, last_error, stack, fingerprint, partition FROM dead_letters WHERE execution_id = $1', [id]);
    expect(dl.rows[0]).toMatchObject({ task: 'dlq', payload: { x: 1 }, attempts: 2, last_error: 'fail 2', fingerprint: 'fp1', partition: 0 });
    const at = await db.pool.query('SELECT attempt, outcome, error FROM execution_attempts WHERE execution_id = $1 ORDER BY attempt', [id]);
    expect(at.rows).toEqual([
      { attempt: 1, outcome: 'retry', error: 'fail 1' },
      { attempt: 2, outcome: 'dead', error: 'fail 2' },
    ]);
    const st = await db.pool.query(`SELECT depth, in_flight, po.failed_total, po.retried_total, po.dead_total FROM partition_stats ps JOIN partition_outcomes po USING (task, partition) WHERE task = 'dlq'`);
    expect(st.rows[0]).toEqual({ depth: 0, in_flight: 0, failed_total: 2, retried_total: 1, dead_total: 1 });
  });
});
