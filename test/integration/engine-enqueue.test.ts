// Enqueue: routing, idempotency, backpressure policies with exact depth counters under
// concurrency, spill drain order, the REST handler's status mapping and the execution view.
import { describe, it, expect, beforeAll } from 'vitest';
import { testDatabase, type TestDatabase } from './db';
import { applyTasks, fakeCoordinator, partitionStats, statsDelta } from '../support/engine-fixtures';
import { enqueue } from '../../server/services/enqueue';
import { handleEnqueueRequest } from '../../server/api/rest-enqueue';
import { getExecution } from '../../server/presenters/execution';
import { drainOverflow } from '../../server/db/drain-overflow';
import { claimExecutions } from '../../server/db/claim-executions';
import { finishExecutions } from '../../server/db/finish-executions';
import { withTransaction } from '../../server/db/pool';
import { isCoreError } from '../../server/core/errors';
import { stableHash32 } from '../../server/core/stable-hash';

let db: TestDatabase;
beforeAll(async () => {
  db = await testDatabase();
});

describe('routing', () => {
  it('hash: the same key always lands on the same partition', async () => {
    await applyTasks(db.pool, [{ name: 'hashed', partitions: 8, routing: { strategy: 'hash', keyPath: 'customer.id' } }]);
    const customers = Array.from({ length: 20 }, (_, i) => `c${i}`);
    const seen = new Map<string, Set<number>>();
    for (let round = 0; round < 3; round++) {
      const r = await enqueue(db.pool, 'hashed', customers.map((c) => ({ payload: { customer: { id: c } } })));
      r.executions.forEach((e, i) => {
        const s = seen.get(customers[i]!) ?? new Set();
        s.add(e.partition);
        seen.set(customers[i]!, s);
      });
    }
    for (const [c, parts] of seen) {
      expect([...parts]).toEqual([stableHash32(c) % 8]);
    }
    await expect(enqueue(db.pool, 'hashed', [{ payload: {} }])).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  });

  it('round-robin spreads single and batched enqueues evenly', async () => {
    await applyTasks(db.pool, [{ name: 'rr', partitions: 4 }]);
    const counts = [0, 0, 0, 0];
    for (let i = 0; i < 40; i++) counts[(await enqueue(db.pool, 'rr', [{ payload: { i } }])).executions[0]!.partition]!++;
    expect(counts).toEqual([10, 10, 10, 10]);
    const batch = await enqueue(db.pool, 'rr', Array.from({ length: 100 }, (_, i) => ({ payload: { i } })));
    const b = [0, 0, 0, 0];
    batch.executions.forEach((e) => b[e.partition]!++);
    expect(b).toEqual([25, 25, 25, 25]);
  });

  it('least-loaded reads the cached depths and fills the emptiest partition', async () => {
    await applyTasks(db.pool, [{ name: 'll', partitions: 3, routing: { strategy: 'least-loaded' } }]);
    await db.pool.query(`UPDATE partition_stats SET depth = CASE partition WHEN 0 THEN 50 WHEN 1 THEN 5 ELSE 40 END WHERE task = 'll'`);
    const r = await enqueue(db.pool, 'll', Array.from({ length: 10 }, () => ({ payload: {} })));
    expect(new Set(r.executions.map((e) => e.partition))).toEqual(new Set([1]));
  });
});

describe('cost of a batch', () => {
  it("reads the task's runtime row once per batch, not once per row (a hot row: every claim and finish updates it)", async () => {
    // The fair group's name came from a CTE that Postgres inlined into the per-row
    // subquery: one task_runtime lookup per inserted row. Under a held snapshot each lookup
    // walks every version of that row since the snapshot (bench:soak: 191 buffer reads per
    // row, 534 ms per 1,650-row batch). Counted here as index scans of task_runtime while
    // one session enqueues 500 rows of a fair and of a fifo task.
    // one session for the set-up too: another backend's unflushed statistics could land in
    // the measured window (statsDelta)
    const c = await db.pool.connect();
    try {
      await applyTasks(c, [
        { name: 'batch-fair', partitions: 2, order: 'fair', fairGroup: 'tenant', groups: [{ name: 'tenant', limit: 5, keyPath: 't' }], backpressure: { maxDepth: 100_000 } },
        { name: 'batch-fifo', partitions: 2, groups: [{ name: 'tenant', limit: 5, keyPath: 't' }], backpressure: { maxDepth: 100_000 } },
      ]);
      for (const task of ['batch-fair', 'batch-fifo']) {
        const { delta } = await statsDelta(db.pool, c, `SELECT idx_scan FROM pg_stat_user_tables WHERE relname = 'task_runtime'`, () =>
          enqueue(c, task, Array.from({ length: 500 }, (_, i) => ({ payload: { t: `t${i % 7}` } }))),
        );
        expect(delta.idx_scan).toBeLessThan(20);
      }
      const fk = await db.pool.query(`SELECT count(*) FILTER (WHERE fair_key = 'tenant=t3')::int AS n FROM executions WHERE task = 'batch-fair'`);
      expect(fk.rows[0].n).toBe(71); // the fair key is still written: rows 3, 10, …, 493
    } finally {
      c.release();
    }
  });
});

describe('JIT', () => {
  it('a batch of 256 rows or more runs with JIT off for the rest of its transaction only; a small one leaves it as it was', async () => {
    // From ~1,000 rows the insert's estimated cost crossed jit_above_cost and the server
    // compiled it with LLVM on every call: ~680 of ~830 ms per 5,000-row batch
    // (pg_stat_statements, engine bench, 2026-12-02). SET LOCAL, so it passes PgBouncer
    // and ends with the transaction.
    await applyTasks(db.pool, [{ name: 'jit-batch', partitions: 2, backpressure: { maxDepth: 100_000 } }]);
    const c = await db.pool.connect();
    try {
      const before = (await c.query<{ jit: string }>('SHOW jit')).rows[0]!.jit;
      const jitAfter = async (rows: number) =>
        withTransaction(c, async (tx) => {
          await enqueue(tx, 'jit-batch', Array.from({ length: rows }, (_, i) => ({ payload: { i } })));
          return (await tx.query<{ jit: string }>('SHOW jit')).rows[0]!.jit;
        });
      expect(await jitAfter(10)).toBe(before);
      expect(await jitAfter(300)).toBe('off');
      expect((await c.query<{ jit: string }>('SHOW jit')).rows[0]!.jit).toBe(before);
      const n = await c.query<{ n: number }>(`SELECT count(*)::int AS n FROM executions WHERE task = 'jit-batch'`);
      expect(n.rows[0]!.n).toBe(310);
    } finally {
      c.release();
    }
  });
});

describe('idempotency', () => {
  it('dedupes repeated and concurrent enqueues with the same key', async () => {
    await applyTasks(db.pool, [{ name: 'idem', partitions: 4 }]);
    const a = await enqueue(db.pool, 'idem', [{ payload: { n: 1 }, idempotencyKey: 'k1' }]);
    const b = await enqueue(db.pool, 'idem', [{ payload: { n: 2 }, idempotencyKey: 'k1' }]);
    expect(b.executions[0]).toMatchObject({ id: a.executions[0]!.id, deduplicated: true });
    const inBatch = await enqueue(db.pool, 'idem', [
      { payload: {}, idempotencyKey: 'k2' },
      { payload: {}, idempotencyKey: 'k2' },
    ]);
    expect(inBatch.executions[1]!.id).toBe(inBatch.executions[0]!.id);
    const racing = await Promise.all(Array.from({ length: 10 }, () => enqueue(db.pool, 'idem', [{ payload: {}, idempotencyKey: 'k3' }])));
    expect(new Set(racing.map((r) => r.executions[0]!.id)).size).toBe(1);
    const n = await db.pool.query(`SELECT count(*)::int AS n FROM executions WHERE task = 'idem'`);
    expect(n.rows[0].n).toBe(3);
    const depth = await db.pool.query(`SELECT sum(depth)::int AS d FROM partition_stats WHERE task = 'idem'`);
    expect(depth.rows[0].d).toBe(3);
  });
});

describe('backpressure', () => {
  it('reject: exact depth under concurrent producers, 429 with Retry-After', async () => {
    await applyTasks(db.pool, [{ name: 'rej', partitions: 1, backpressure: { maxDepth: 50, policy: 'reject', retryAfterMs: 2500 } }]);
    const outcomes = await Promise.allSettled(Array.from({ length: 80 }, (_, i) => enqueue(db.pool, 'rej', [{ payload: { i } }])));
    const ok = outcomes.filter((o) => o.status === 'fulfilled').length;
    const rejected = outcomes.filter((o) => o.status === 'rejected');
    expect(ok).toBe(50);
    expect(rejected).toHaveLength(30);
    for (const r of rejected) {
      const e = (r as PromiseRejectedResult).reason;
      expect(isCoreError(e) && e.code === 'TOO_MANY_REQUESTS' && e.retryAfterMs === 2500).toBe(true);
    }
    const [p] = await partitionStats(db.pool, 'rej');
    expect(p).toMatchObject({ depth: 50, rejected_total: 30 });
    const reply = await handleEnqueueRequest({ taskName: 'rej', body: { payload: {} }, db: db.pool });
    expect(reply.status).toBe(429);
    expect(reply.headers['retry-after']).toBe('3');
    expect(reply.body).toMatchObject({ retryAfterMs: 2500 });
  });

  it('early insert: when the decision under the lock is a reject, the rows it inserted roll back and the call is refused as before', async () => {
    await applyTasks(db.pool, [{ name: 'early', partitions: 1, backpressure: { maxDepth: 5, policy: 'reject', retryAfterMs: 1000 } }]);
    await enqueue(db.pool, 'early', [1, 2, 3].map((i) => ({ payload: { i } })));
    const seq = async () => Number((await db.pool.query('SELECT last_value FROM executions_id_seq')).rows[0].last_value);
    const holder = await db.pool.connect();
    try {
      // Another transaction holds the counter row, as a concurrent enqueue does.
      await holder.query('BEGIN');
      await holder.query(`SELECT 1 FROM partition_stats WHERE task = 'early' FOR NO KEY UPDATE`);
      const before = await seq();
      // The producer read depth 3 without a lock (room for 2): it inserts first, then waits for the row.
      const call = enqueue(db.pool, 'early', [{ payload: { a: 1 } }, { payload: { a: 2 } }]);
      for (let i = 0; ; i++) {
        const w = await db.pool.query(
          `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%FROM partition_stats%' AND pid <> pg_backend_pid()`,
        );
        if (w.rows.length > 0) break;
        if (i > 500) throw new Error('the producer never waited for the counter row');
        await new Promise((r) => setTimeout(r, 10));
      }
      expect(await seq()).toBe(before + 2); // the early insert drew its ids
      // The other transaction filled the partition meanwhile.
      await holder.query(`UPDATE partition_stats SET depth = 5 WHERE task = 'early'`);
      await holder.query('COMMIT');
      await expect(call).rejects.toMatchObject({ code: 'TOO_MANY_REQUESTS', retryAfterMs: 1000 });
    } finally {
      holder.release();
    }
    const rows = await db.pool.query(`SELECT count(*)::int AS n FROM executions WHERE task = 'early'`);
    expect(rows.rows[0].n).toBe(3); // nothing of the refused call stayed
    const [p] = await partitionStats(db.pool, 'early');
    expect(p).toMatchObject({ depth: 5, rejected_total: 2 });
  });

  it('throttle: accepted but delayed, bounded by throttleMaxDelayMs', async () => {
    await applyTasks(db.pool, [
      { name: 'thr', partitions: 1, backpressure: { maxDepth: 5, policy: 'throttle', throttleDelayMs: 100, throttleMaxDelayMs: 400 } },
    ]);
    const first = await enqueue(db.pool, 'thr', Array.from({ length: 5 }, () => ({ payload: {} })));
    expect(first.throttledMs).toBe(0);
    const over = await enqueue(db.pool, 'thr', [{ payload: {} }, { payload: {} }]);
    expect(over.throttledMs).toBe(200);
    const far = await enqueue(db.pool, 'thr', Array.from({ length: 10 }, () => ({ payload: {} })));
    expect(far.throttledMs).toBe(400);
    const r = await db.pool.query(`SELECT extract(epoch FROM run_at - enqueued_at) * 1000 AS d FROM executions WHERE id = $1`, [far.executions[0]!.id]);
    expect(Number(r.rows[0].d)).toBeGreaterThanOrEqual(399);
  });

  it('shed: drops the configured share of the overflow, counted and reported', async () => {
    await applyTasks(db.pool, [{ name: 'shed', partitions: 1, backpressure: { maxDepth: 10, policy: 'shed', shedPercent: 100 } }]);
    const r = await enqueue(db.pool, 'shed', Array.from({ length: 25 }, () => ({ payload: {} })));
    expect(r.shed).toBe(15);
    expect(r.executions.filter((e) => e.state === 'shed' && e.id === null)).toHaveLength(15);
    const [p] = await partitionStats(db.pool, 'shed');
    expect(p).toMatchObject({ depth: 10, shed_total: 15 });
    await applyTasks(db.pool, [{ name: 'shed', partitions: 1, backpressure: { maxDepth: 10, policy: 'shed', shedPercent: 50 } }]);
    const half = await enqueue(db.pool, 'shed', Array.from({ length: 20 }, () => ({ payload: {} })));
    expect(half.shed).toBe(10);
  });

  it('spill: parks the overflow and drains it back in order when depth falls', async () => {
    await applyTasks(db.pool, [{ name: 'spill', partitions: 1, concurrency: 100, stream: { keyPath: 's' }, backpressure: { maxDepth: 10, policy: 'spill' } }]);
    const coord = await fakeCoordinator(db.pool, ['spill']);
    const r = await enqueue(db.pool, 'spill', Array.from({ length: 30 }, (_, i) => ({ payload: { i, s: i % 2 ? 'odd' : undefined } })));
    expect(r.spilled).toBe(20);
    const spilledId = r.executions[25]!.id!;
    expect((await getExecution(db.pool, spilledId))).toMatchObject({ state: 'queued', spilled: true });
    // while spilled rows wait, new arrivals spill too (they must not overtake)
    const late = await enqueue(db.pool, 'spill', [{ payload: { i: 30 } }]);
    expect(late.executions[0]!.state).toBe('spilled');
    // nothing drains while the partition is full
    expect((await withTransaction(db.pool, (c) => drainOverflow(c, 'spill', 10))).drained).toBe(0);
    const order: number[] = [];
    for (let round = 0; round < 20; round++) {
      const got = await claimExecutions(db.pool, coord, 'spill', 100, 60_000);
      order.push(...got.map((e) => (e.payload as { i: number }).i));
      await finishExecutions(db.pool, 'spill', got.map((e) => ({ id: e.id, leaseToken: e.leaseToken, outcome: 'succeeded' as const })));
      await withTransaction(db.pool, (c) => drainOverflow(c, 'spill', 10));
    }
    expect(order.slice().sort((a, b) => a - b)).toEqual(Array.from({ length: 31 }, (_, i) => i));
    const odd = order.filter((i) => i % 2 === 1);
    expect(odd).toEqual(odd.slice().sort((a, b) => a - b));
    expect((await getExecution(db.pool, spilledId))).toMatchObject({ state: 'succeeded', spilled: false, id: spilledId });
    const [p] = await partitionStats(db.pool, 'spill');
    expect(p).toMatchObject({ depth: 0, spilled: 0, in_flight: 0 });
  });
});

describe('REST handler and execution view', () => {
  it('maps bodies and errors to 202/400/404 and reads the execution back', async () => {
    await applyTasks(db.pool, [{ name: 'rest', partitions: 2, groups: [{ name: 'tenant', limit: 5, keyPath: 'tenant' }], stream: {} }]);
    const ok = await handleEnqueueRequest({ taskName: 'rest', body: { payload: { tenant: 'acme' }, streamKey: 's1' }, db: db.pool });
    expect(ok.status).toBe(202);
    const id = (ok.body as { executions: { id: number }[] }).executions[0]!.id;
    const view = await getExecution(db.pool, String(id));
    expect(view).toMatchObject({ id, task: 'rest', state: 'queued', attempts: 0, groups: { tenant: 'acme' }, streamKey: 's1', lastError: null });
    const explicit = await handleEnqueueRequest({ taskName: 'rest', body: { executions: [{ payload: { tenant: 'acme' }, groups: { tenant: 'beta' } }] }, db: db.pool });
    const eid = (explicit.body as { executions: { id: number }[] }).executions[0]!.id;
    expect((await getExecution(db.pool, eid))!.groups).toEqual({ tenant: 'beta' });
    const bad = await handleEnqueueRequest({ taskName: 'rest', body: { executions: [{ payload: {}, delayMs: -1 }] }, db: db.pool });
    expect(bad.status).toBe(400);
    expect((bad.body as { fieldErrors: { path: string }[] }).fieldErrors[0]!.path).toBe('executions.0.delayMs');
    const badGroup = await handleEnqueueRequest({ taskName: 'rest', body: { payload: {}, groups: { nope: 'x' } }, db: db.pool });
    expect(badGroup).toMatchObject({ status: 400, body: { fieldErrors: [{ path: 'groups.nope' }] } });
    expect((await handleEnqueueRequest({ taskName: 'missing', body: { payload: {} }, db: db.pool })).status).toBe(404);
    expect(await getExecution(db.pool, '999999999')).toBeNull();
    expect(await getExecution(db.pool, 'abc')).toBeNull();
  });
});
