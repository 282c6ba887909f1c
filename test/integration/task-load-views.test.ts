// The per-task Keys and Streams views on real Postgres: each key's running / limit
// (override marked) / queued / oldest wait / finished per minute against a seeded state,
// the order and the keyset pages over 10,000 keys, the finish counter's maintenance
// service, blocked streams with a retrying head, and hostile input through the router.
import { describe, it, expect, beforeAll } from 'vitest';
import { testDatabase, type TestDatabase } from './db';
import { applyTasks, fakeCoordinator, foldAllSlotDeltas, sleep } from '../support/engine-fixtures';
import { callerAs } from '../support/trpc-caller';
import { enqueue } from '../../server/services/enqueue';
import { claimExecutions, type ClaimedExecution } from '../../server/db/claim-executions';
import { finishExecutions } from '../../server/db/finish-executions';
import { recordKeyFinishes } from '../../server/db/record-key-finishes';
import { runServiceOnce } from '../../server/db/maintenance-runner';
import { keyFinishes } from '../../server/coordinator/maintenance/key-finishes';
import { getTaskKeys } from '../../server/presenters/task-keys';
import { getTaskStreams } from '../../server/presenters/task-streams';
import type { SessionUser } from '../../server/services/sessions';

let db: TestDatabase;
const viewer: SessionUser = { id: '00000000-0000-4000-8000-000000000001', email: 'v@example.com', role: 'viewer' };

beforeAll(async () => {
  db = await testDatabase();
});

const byKey = (rows: ClaimedExecution[], key: string) => rows.filter((e) => (e.groups as Record<string, string>).tenant === key);

/** Waits until at least `s` seconds remain in the current minute (of the database clock). */
async function awayFromMinuteEnd(s: number) {
  const r = await db.pool.query<{ sec: number }>(`SELECT extract(second FROM now())::float8 AS sec`);
  if (r.rows[0]!.sec > 60 - s) await sleep((61 - r.rows[0]!.sec) * 1000);
}

describe('keys view', () => {
  it('shows running / limit (override marked) / queued / oldest wait / finished per minute, most queued first', async () => {
    await applyTasks(db.pool, [
      { name: 'kv', partitions: 2, concurrency: 20, groups: [{ name: 'tenant', limit: 2, keyPath: 't', overrides: { big: 5 } }], backpressure: { maxDepth: 100_000 } },
    ]);
    const me = await fakeCoordinator(db.pool, ['kv']);
    const seed = (t: string, n: number) => Array.from({ length: n }, (_, i) => ({ payload: { t, i } }));
    await enqueue(db.pool, 'kv', [...seed('big', 12), ...seed('mid', 6), ...seed('small', 1)]);
    const running: ClaimedExecution[] = [];
    for (let i = 0; i < 5; i++) running.push(...(await claimExecutions(db.pool, me, 'kv', 20, 60_000)));
    expect(byKey(running, 'big')).toHaveLength(5);
    expect(byKey(running, 'mid')).toHaveLength(2);
    expect(byKey(running, 'small')).toHaveLength(1);

    // Three of big's runs finish in the previous minute; the recorder counts them.
    await awayFromMinuteEnd(5);
    const done = byKey(running, 'big').slice(0, 3);
    await finishExecutions(db.pool, 'kv', done.map((e) => ({ id: e.id, leaseToken: e.leaseToken, outcome: 'succeeded' as const })));
    await db.pool.query(`UPDATE executions SET finished_at = date_trunc('minute', now()) - interval '20 seconds' WHERE id = ANY ($1)`, [done.map((e) => e.id)]);
    await db.pool.query(`INSERT INTO group_key_finish_cursor (id, scanned_until) VALUES (1, now() - interval '5 minutes')`);
    expect(await recordKeyFinishes(db.pool, { lagMs: 0 })).toMatchObject({ scanned: 3, buckets: 1 });
    // A second pass counts nothing twice.
    expect(await recordKeyFinishes(db.pool, { lagMs: 0 })).toMatchObject({ scanned: 0, buckets: 0 });

    const now = new Date();
    const oldest = await db.pool.query<{ k: string; at: Date }>(
      `SELECT g AS k, min(run_at) AS at FROM executions, unnest(group_keys) g WHERE task = 'kv' AND state = 'queued' GROUP BY g`,
    );
    const oldestOf = Object.fromEntries(oldest.rows.map((r) => [r.k, now.getTime() - r.at.getTime()]));
    await foldAllSlotDeltas(db.pool); // the claims' and finishes' logged moves, as the coordinators fold them
    const v = await getTaskKeys(db.pool, { task: 'kv' }, now);
    expect(v.group).toBe('tenant');
    expect(v.groups).toEqual([{ name: 'tenant', limit: 2, overrides: 1 }]);
    expect(v.totals).toEqual({ keys: 3, running: 2 + 2 + 1, queued: 7 + 4 });
    expect(v.rows.map((r) => [r.key, r.running, r.limit, r.override, r.queued, r.finishedPerMinute])).toEqual([
      ['big', 2, 5, true, 7, 3],
      ['mid', 2, 2, false, 4, 0],
      ['small', 1, 2, false, 0, 0],
    ]);
    expect(v.rows[0]!.oldestWaitMs).toBe(oldestOf['tenant=big']);
    expect(v.rows[1]!.oldestWaitMs).toBe(oldestOf['tenant=mid']);
    expect(v.rows[2]!.oldestWaitMs).toBeNull();
    expect(v.rows[0]!.executionsHref).toBe('/executions?task=kv&group=tenant%3Dbig');
    expect(v.nextCursor).toBeNull();
    expect(v.finishedMinute).not.toBeNull();

    // Rows the claim set aside (waiting_on) are found through the waiting index: mid is
    // saturated, so claims set its rows aside; its oldest wait is unchanged.
    for (let i = 0; i < 3; i++) await claimExecutions(db.pool, me, 'kv', 20, 60_000);
    const set = await db.pool.query(`SELECT count(*)::int AS n FROM executions WHERE task = 'kv' AND waiting_on = 'tenant=mid'`);
    expect(set.rows[0].n).toBeGreaterThan(0);
    const again = await getTaskKeys(db.pool, { task: 'kv', key: 'mid', limit: 1 }, now);
    expect(again.focus).toMatchObject({ key: 'mid', queued: 4, oldestWaitMs: oldestOf['tenant=mid'] });
    expect(again.rows.map((r) => r.key)).toEqual(['big']);
    expect(again.nextCursor).not.toBeNull();
  });

  it("shows each key's rate (next slot from the claim's GCRA state) and fair share (weight, running ÷ weight) (issue #19)", async () => {
    await applyTasks(db.pool, [
      {
        name: 'kv-rate',
        partitions: 1,
        concurrency: 20,
        order: 'fair',
        groups: [{ name: 'tenant', limit: 10, keyPath: 't', weights: { acme: 2 }, rate: { limit: 2, per: 60_000, burst: 1, overrides: { acme: { limit: 4 } } } }],
      },
    ]);
    await enqueue(db.pool, 'kv-rate', [...Array.from({ length: 5 }, () => ({ payload: { t: 'acme' } })), ...Array.from({ length: 5 }, () => ({ payload: { t: 'beta' } }))]);
    const me = await fakeCoordinator(db.pool, ['kv-rate']);
    // burst 1: two of each key start at once, then each waits for its next slot (T = 15 s for
    // acme's 4/min, 30 s for beta's 2/min)
    const got = await claimExecutions(db.pool, me, 'kv-rate', 20, 60_000);
    expect(got).toHaveLength(4);
    const tat = await db.pool.query<{ k: string; tat: number }>(`SELECT group_key AS k, tat_ms AS tat FROM rate_state WHERE task = 'kv-rate' ORDER BY 1`);
    const now = new Date();
    await foldAllSlotDeltas(db.pool);
    const v = await getTaskKeys(db.pool, { task: 'kv-rate' }, now);
    const tatOf = Object.fromEntries(tat.rows.map((r) => [r.k, Number(r.tat)]));
    expect(v.groupRate).toBe('2/min, burst 1');
    expect(v.fairShared).toBe(true);
    const acme = v.rows.find((r) => r.key === 'acme')!;
    const beta = v.rows.find((r) => r.key === 'beta')!;
    expect(acme.rate).toMatchObject({ label: '4/min, burst 1', held: true, nextSlotMs: tatOf.acme! - 15_000 - now.getTime() });
    expect(beta.rate).toMatchObject({ label: '2/min, burst 1', held: true, nextSlotMs: tatOf.beta! - 30_000 - now.getTime() });
    expect(acme.rate!.nextSlotMs).toBeGreaterThan(10_000);
    expect(acme.fair).toEqual({ weight: 2, perWeight: 1 });
    expect(beta.fair).toEqual({ weight: 1, perWeight: 2 });
    // a fifo task without rates: neither
    await applyTasks(db.pool, [{ name: 'kv-rate', partitions: 1, concurrency: 20, groups: [{ name: 'tenant', limit: 10, keyPath: 't' }] }]);
    const plain = await getTaskKeys(db.pool, { task: 'kv-rate' }, now);
    expect(plain.groupRate).toBeNull();
    expect(plain.fairShared).toBe(false);
    expect(plain.rows.every((r) => r.rate === null && r.fair === null)).toBe(true);
  });

  it('is recorded by the key-finishes maintenance service', async () => {
    const r = await runServiceOnce(db.pool, keyFinishes, { intervalMs: keyFinishes.intervalMs }, { coordinatorId: '00000000-0000-4000-8000-0000000000aa', staleMs: 30_000, log: () => {} });
    expect(r.ran).toBe(true);
    expect(r.result).toHaveProperty('scanned');
  });

  it('counts each finish once when a capped scan stops inside a run of finishes', async () => {
    await db.pool.query(
      `INSERT INTO group_key_finish_cursor (id, scanned_until) VALUES (1, date_trunc('minute', now()) - interval '4 minutes')
       ON CONFLICT (id) DO UPDATE SET scanned_until = excluded.scanned_until`,
    );
    await db.pool.query(
      `INSERT INTO executions (task, partition, state, payload, group_keys, finished_at)
       SELECT 'capt', 0, 'succeeded', '{}', '{tenant=x,region=eu}', date_trunc('minute', now()) - interval '3 minutes' + make_interval(secs => s)
       FROM unnest(ARRAY[10, 20, 20, 30]) s`,
    );
    const counted = async () =>
      (await db.pool.query(`SELECT group_name, sum(finished)::int AS n FROM group_key_finishes WHERE task = 'capt' GROUP BY 1 ORDER BY 1`)).rows;
    // Two rows per pass: the cut is the 2nd finished_at (:20), so the first pass counts :10
    // alone; the next cut (:20 again, the cursor itself) counts the :20 pair whole; then :30.
    expect(await recordKeyFinishes(db.pool, { lagMs: 0, limit: 2 })).toMatchObject({ scanned: 1 });
    expect(await counted()).toEqual([{ group_name: 'region', n: 1 }, { group_name: 'tenant', n: 1 }]);
    expect(await recordKeyFinishes(db.pool, { lagMs: 0, limit: 2 })).toMatchObject({ scanned: 2 });
    expect(await recordKeyFinishes(db.pool, { lagMs: 0, limit: 2 })).toMatchObject({ scanned: 1 });
    // (Later passes reach this file's other finishes, not capt's.)
    for (let i = 0; i < 5 && (await recordKeyFinishes(db.pool, { lagMs: 0, limit: 2 })).scanned > 0; i++);
    expect(await counted()).toEqual([{ group_name: 'region', n: 4 }, { group_name: 'tenant', n: 4 }]);
  });

  it('pages through 10,000 keys in (queued desc, key) order without repeats or gaps', async () => {
    await applyTasks(db.pool, [
      { name: 'kv', partitions: 2, concurrency: 20, groups: [{ name: 'tenant', limit: 2, keyPath: 't', overrides: { big: 5 } }], backpressure: { maxDepth: 100_000 } },
      { name: 'many', partitions: 4, concurrency: 100, groups: [{ name: 'tenant', limit: 3, keyPath: 't' }, { name: 'region', limit: 50, keyPath: 'r' }] },
    ]);
    await db.pool.query(
      `INSERT INTO group_slots (task, group_name, group_key, in_flight, queued)
       SELECT 'many', 'tenant', 'k' || lpad(i::text, 5, '0'), i % 4, (i * 7919) % 503 FROM generate_series(1, 10000) i`,
    );
    // Idle keys (nothing running or queued) and other groups are not listed.
    await db.pool.query(`INSERT INTO group_slots (task, group_name, group_key, in_flight, queued) VALUES ('many', 'tenant', 'idle', 0, 0), ('many', 'region', 'eu', 1, 9)`);
    const expected = await db.pool.query<{ group_key: string }>(
      `SELECT group_key FROM group_slots WHERE task = 'many' AND group_name = 'tenant' AND (in_flight > 0 OR queued > 0) ORDER BY queued DESC, group_key`,
    );
    const seen: string[] = [];
    const times: number[] = [];
    let after: string | undefined;
    for (;;) {
      const t0 = performance.now();
      const page = await callerAs(db.pool, viewer).taskLoad.keys({ task: 'many', group: 'tenant', limit: 100, ...(after ? { after } : {}) });
      times.push(performance.now() - t0);
      expect(page.totals.keys).toBe(expected.rows.length);
      seen.push(...page.rows.map((r) => r.key));
      if (!page.nextCursor) break;
      after = page.nextCursor;
    }
    expect(seen).toEqual(expected.rows.map((r) => r.group_key));
    // in_flight = i % 4 and queued = (i·7919) % 503 are both 0 only for multiples of 2,012: 4 idle keys.
    expect(seen).toHaveLength(10_000 - 4);
    times.sort((a, b) => a - b);
    const p95 = times[Math.floor(times.length * 0.95)]!;
    console.log(`keys view: ${times.length} pages of 100 over 10,000 keys, p50 ${times[times.length >> 1]!.toFixed(1)} ms, p95 ${p95.toFixed(1)} ms`);
    expect(p95).toBeLessThan(1000);

    const region = await callerAs(db.pool, viewer).taskLoad.keys({ task: 'many', group: 'region' });
    expect(region.rows).toMatchObject([{ key: 'eu', running: 1, limit: 50, override: false, queued: 9 }]);
  });

  it('refuses hostile input field by field and writes nothing', async () => {
    const c = callerAs(db.pool, viewer);
    const bad = async (input: unknown, path: string) => {
      const err = await c.taskLoad.keys(input as never).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'BAD_REQUEST' });
      expect(JSON.stringify((err as { shape?: unknown }).shape ?? (err as Error).message)).toContain(path);
    };
    await bad({ task: 'kv', key: 'a\u0000b' }, 'key');
    await bad({ task: 'kv', key: '\ud800' }, 'key');
    await bad({ task: 'kv', key: 'x'.repeat(201) }, 'key');
    await bad({ task: 'kv', after: 'nonsense' }, 'after');
    await bad({ task: 'kv', after: '99999999999:k' }, 'after');
    await bad({ task: 'kv', group: 'Tenant' }, 'group');
    await bad({ task: 'kv', group: 'nope' }, 'group');
    await bad({ task: 'kv', limit: 10_000 }, 'limit');
    await bad({ task: 'kv', extra: 1 }, 'extra');
    await bad({ task: 'KV' }, 'task');
    await expect(c.taskLoad.keys({ task: 'absent' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(c.taskLoad.streams({ task: 'kv', after: -1 })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(callerAs(db.pool, null).taskLoad.keys({ task: 'kv' })).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    // Parallel page loads agree.
    const pages = await Promise.all(Array.from({ length: 8 }, () => c.taskLoad.keys({ task: 'kv' })));
    expect(new Set(pages.map((p) => JSON.stringify(p.rows.map((r) => [r.key, r.queued])))).size).toBe(1);
  });
});

describe('streams view', () => {
  it('lists blocked streams with a retrying head’s attempt and next retry', async () => {
    await applyTasks(db.pool, [{ name: 'st', partitions: 1, concurrency: 10, stream: { keyPath: 's' } }]);
    const me = await fakeCoordinator(db.pool, ['st']);
    await enqueue(db.pool, 'st', [
      { payload: { s: 'a', n: 1 } },
      { payload: { s: 'b', n: 1 } },
      { payload: { s: 'c', n: 1 } },
      { payload: { s: 'a', n: 2 } },
      { payload: { s: 'a', n: 3 } },
      { payload: { s: 'c', n: 2 } },
    ]);
    const heads = await claimExecutions(db.pool, me, 'st', 10, 60_000);
    expect(heads.map((h) => h.streamKey).sort()).toEqual(['a', 'b', 'c']);
    const a = heads.find((h) => h.streamKey === 'a')!;
    const c = heads.find((h) => h.streamKey === 'c')!;
    const retryAt = new Date(Date.now() + 90_000);
    await finishExecutions(db.pool, 'st', [{ id: a.id, leaseToken: a.leaseToken, outcome: 'retry', runAt: retryAt, error: 'smtp 451' }]);

    const now = new Date();
    const v = await getTaskStreams(db.pool, { task: 'st' }, now);
    expect(v.streamKeyPath).toBe('s');
    expect(v.rows.map((r) => r.stream)).toEqual(['a', 'c']);
    const [ra, rc] = v.rows;
    expect(ra).toMatchObject({ headId: a.id, headHref: `/executions/${a.id}`, status: 'retry-scheduled', attempt: 1, behind: 2, behindCapped: false, lastError: 'smtp 451' });
    expect(ra!.nextRetryAt!.getTime()).toBe(retryAt.getTime());
    expect(rc).toMatchObject({ headId: c.id, status: 'running', attempt: 1, behind: 1, nextRetryAt: null });
    expect(rc!.leaseExpiresAt).not.toBeNull();
    const enq = await db.pool.query<{ id: number; enqueued_at: Date }>(`SELECT id, enqueued_at FROM executions WHERE id = $1`, [a.id]);
    expect(ra!.headAgeMs).toBe(now.getTime() - enq.rows[0]!.enqueued_at.getTime());

    // Pages: one stream per page, the cursor is the first-behind id (the rank).
    const p1 = await callerAs(db.pool, viewer).taskLoad.streams({ task: 'st', limit: 1 });
    expect(p1.rows.map((r) => r.stream)).toEqual(['a']);
    expect(p1.nextCursor).toBe(ra!.firstBehindId);
    const p2 = await callerAs(db.pool, viewer).taskLoad.streams({ task: 'st', limit: 1, after: p1.nextCursor! });
    expect(p2.rows.map((r) => r.stream)).toEqual(['c']);
    expect(p2.nextCursor).toBeNull();

    // The head finishes: its stream moves on (the next one becomes head, still blocking one).
    const due = await claimExecutions(db.pool, me, 'st', 10, 60_000);
    expect(due).toEqual([]); // a's retry is not due yet, b and c are running
    await finishExecutions(db.pool, 'st', [{ id: c.id, leaseToken: c.leaseToken, outcome: 'succeeded' }]);
    const after = await getTaskStreams(db.pool, { task: 'st' });
    expect(after.rows.map((r) => r.stream)).toEqual(['a']);
  });

  it('sorts by how long the stream has been blocked (the oldest wait behind its head), not by the head’s age', async () => {
    await applyTasks(db.pool, [{ name: 'sb', partitions: 1, concurrency: 10, stream: { keyPath: 's' } }]);
    const me = await fakeCoordinator(db.pool, ['sb']);
    // Heads of x (older head) and y (newer head), both running.
    await enqueue(db.pool, 'sb', [{ payload: { s: 'x', n: 1 } }, { payload: { s: 'y', n: 1 } }]);
    const heads = await claimExecutions(db.pool, me, 'sb', 10, 60_000);
    expect(heads).toHaveLength(2);
    // y gets work behind its head first; x only later, so y has been blocked longer although x's head is older.
    await enqueue(db.pool, 'sb', [{ payload: { s: 'y', n: 2 } }]);
    await db.pool.query(`UPDATE executions SET enqueued_at = enqueued_at - interval '10 minutes' WHERE task = 'sb' AND stream_key = 'y' AND state = 'blocked'`);
    await enqueue(db.pool, 'sb', [{ payload: { s: 'x', n: 2 } }, { payload: { s: 'x', n: 3 } }]);
    const now = new Date();
    const v = await getTaskStreams(db.pool, { task: 'sb' }, now);
    expect(v.rows.map((r) => r.stream)).toEqual(['y', 'x']);
    const [ry, rx] = v.rows;
    expect(rx!.headAgeMs).toBeGreaterThanOrEqual(ry!.headAgeMs); // x's head is the older one
    expect(ry!.blockedForMs).toBeGreaterThan(rx!.blockedForMs);
    expect(ry!.blockedForMs).toBeGreaterThanOrEqual(10 * 60_000);
    expect(v.truncated).toBe(false);
    // Pages follow the same rank.
    const p1 = await getTaskStreams(db.pool, { task: 'sb', limit: 1 }, now);
    expect(p1.rows.map((r) => r.stream)).toEqual(['y']);
    const p2 = await getTaskStreams(db.pool, { task: 'sb', limit: 1, after: p1.nextCursor! }, now);
    expect(p2.rows.map((r) => r.stream)).toEqual(['x']);
    expect(p2.nextCursor).toBeNull();
  });

  it('can read the heads in id order from the stream head index', async () => {
    // A table this small is cheaper to scan; with scans off the planner shows which index
    // serves the heads query's shape (at 5M rows it is the only cheap path).
    const c = await db.pool.connect();
    try {
      await c.query('BEGIN');
      await c.query('SET LOCAL enable_seqscan = off');
      await c.query('SET LOCAL enable_bitmapscan = off');
      const plan = await c.query(
        `EXPLAIN SELECT id FROM executions WHERE task = 'st' AND stream_key IS NOT NULL AND state IN ('queued', 'running') AND id > 0 ORDER BY id LIMIT 10`,
      );
      const text = plan.rows.map((r) => r['QUERY PLAN']).join('\n');
      expect(text).toContain('executions_stream_head_idx');
      expect(text).not.toContain('Sort');
      await c.query('ROLLBACK');
    } finally {
      c.release();
    }
  });
});
