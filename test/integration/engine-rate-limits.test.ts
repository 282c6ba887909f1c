// Rate limits (issue #19) through the real claim (sluice_claim / sluice_claim_rows): GCRA
// per task and per group key, all or nothing with the concurrency slots, a held key's rows
// skipped (never blocking other keys), overrides, costs. The rule and its tables:
// server/core/rate-limit.ts. "Time passing" is made by moving a scope's TAT back
// (rate_state.tat_ms), which is all a real wait changes; one case waits for real.
import { describe, it, expect, beforeAll } from 'vitest';
import { testDatabase, type TestDatabase } from './db';
import { applyTasks, fakeCoordinator, sleep } from '../support/engine-fixtures';
import { enqueue } from '../../server/services/enqueue';
import { claimExecutions, type ClaimedExecution } from '../../server/db/claim-executions';
import { finishExecutions } from '../../server/db/finish-executions';
import { gcRateState } from '../../server/db/gc-rate-state';
import { readKeyOldestWaits } from '../../server/db/read-key-oldest-waits';
import { readWhyWaiting } from '../../server/db/why-waiting';
import { whyWaitingFromRow } from '../../server/core/why-waiting';
import { controlPlaneMetricsText } from '../../server/presenters/control-plane-metrics';

let db: TestDatabase;
beforeAll(async () => {
  db = await testDatabase();
});

const HOUR = 3_600_000;
const tenants = (got: ClaimedExecution[]) => got.map((e) => (e.payload as { tenant: string }).tenant).sort();
const finish = (task: string, got: ClaimedExecution[]) =>
  finishExecutions(db.pool, task, got.map((e) => ({ id: e.id, leaseToken: e.leaseToken, outcome: 'succeeded' as const })));
/** Moves every TAT (and parked key's release time) of the task back by `ms`: the scopes look as they will `ms` later. */
const elapse = (task: string, ms: number) => db.pool.query('UPDATE rate_state SET tat_ms = tat_ms - $2, parked_until = parked_until - $2 WHERE task = $1', [task, ms]);
const tats = async (task: string) =>
  (await db.pool.query<{ scope: string; ahead: number }>(
    `SELECT group_name || '=' || group_key AS scope, round(tat_ms - extract(epoch FROM clock_timestamp()) * 1000)::float8 AS ahead
     FROM rate_state WHERE task = $1 ORDER BY 1`,
    [task],
  )).rows;

describe('rate limits in the claim', () => {
  it('per key: an idle key starts burst + 1 at once, then one per interval; a held key never blocks the others; overrides win', async () => {
    await applyTasks(db.pool, [
      {
        name: 'rate-keys',
        partitions: 2,
        concurrency: 100,
        groups: [{ name: 'tenant', limit: 100, keyPath: 'tenant', rate: { limit: 1, per: HOUR, burst: 2, overrides: { acme: { burst: 4 } } } }],
      },
    ]);
    const coord = await fakeCoordinator(db.pool, ['rate-keys']);
    // acme first in the queue: its held rows stand ahead of globex's
    await enqueue(db.pool, 'rate-keys', Array.from({ length: 10 }, () => ({ payload: { tenant: 'acme' } })));
    await enqueue(db.pool, 'rate-keys', Array.from({ length: 10 }, () => ({ payload: { tenant: 'globex' } })));
    const first = await claimExecutions(db.pool, coord, 'rate-keys', 50, 60_000);
    expect(tenants(first)).toEqual([...Array(5).fill('acme'), ...Array(3).fill('globex')]);
    // nothing more within the hour, though 12 rows are queued and 92 slots free
    await finish('rate-keys', first);
    expect(await claimExecutions(db.pool, coord, 'rate-keys', 50, 60_000)).toEqual([]);
    // the held keys' rows are parked out of the claim index until their next slot
    const parked = await db.pool.query(
      `SELECT waiting_on, count(*)::int AS n FROM executions WHERE task = 'rate-keys' AND state = 'queued' GROUP BY 1 ORDER BY 1`,
    );
    expect(parked.rows).toEqual([
      { waiting_on: 'rate:tenant=acme', n: 5 },
      { waiting_on: 'rate:tenant=globex', n: 7 },
    ]);
    // the reconciler's and a config apply's sweep (sluice_release_waiting) leave them to the rate
    expect((await db.pool.query(`SELECT sluice_release_waiting('rate-keys') AS n`)).rows[0].n).toBe(0);
    const until = await db.pool.query(`SELECT group_key, round(parked_until - tat_ms)::int AS d FROM rate_state WHERE task = 'rate-keys' ORDER BY 1`);
    expect(until.rows).toEqual([
      { group_key: 'acme', d: -4 * HOUR }, // TAT − burst × T
      { group_key: 'globex', d: -2 * HOUR },
    ]);
    // Prometheus: both keys held, their 12 queued rows waiting on a rate
    const text = await controlPlaneMetricsText(db.pool);
    expect(text).toContain('sluice_task_rate_held_keys{task="rate-keys"} 2');
    expect(text).toContain('sluice_task_rate_held_executions{task="rate-keys"} 12');
    // the state: TAT = idle start + admitted × T (one hour per execution)
    const ahead = await tats('rate-keys');
    expect(ahead.map((r) => r.scope)).toEqual(['tenant=acme', 'tenant=globex']);
    expect(ahead[0]!.ahead).toBeGreaterThan(5 * HOUR - 5000);
    expect(ahead[0]!.ahead).toBeLessThanOrEqual(5 * HOUR);
    expect(ahead[1]!.ahead).toBeGreaterThan(3 * HOUR - 5000);
    // one interval later: one each (the burst is spent; the steady rate is one per hour)
    await elapse('rate-keys', HOUR);
    const next = await claimExecutions(db.pool, coord, 'rate-keys', 50, 60_000);
    expect(tenants(next)).toEqual(['acme', 'globex']);
    await finish('rate-keys', next);
    expect(await claimExecutions(db.pool, coord, 'rate-keys', 50, 60_000)).toEqual([]);
    // a config change applies at once: globex's override raises its burst
    await applyTasks(db.pool, [
      {
        name: 'rate-keys',
        partitions: 2,
        concurrency: 100,
        groups: [{ name: 'tenant', limit: 100, keyPath: 'tenant', rate: { limit: 1, per: HOUR, burst: 2, overrides: { acme: { burst: 4 }, globex: { burst: 10 } } } }],
      },
    ]);
    const raised = await claimExecutions(db.pool, coord, 'rate-keys', 50, 60_000);
    expect(tenants(raised)).toEqual(Array(6).fill('globex'));
  });

  it('a config that drops the rate releases the rows parked on it', async () => {
    const def = (rate: boolean) => ({
      name: 'rate-drop',
      partitions: 1,
      concurrency: 100,
      groups: [{ name: 'tenant', limit: 100, keyPath: 'tenant', ...(rate ? { rate: { limit: 1, per: HOUR, burst: 0 } } : {}) }],
    });
    await applyTasks(db.pool, [def(true)]);
    const coord = await fakeCoordinator(db.pool, ['rate-drop']);
    await enqueue(db.pool, 'rate-drop', Array.from({ length: 4 }, () => ({ payload: { tenant: 'a' } })));
    expect(await claimExecutions(db.pool, coord, 'rate-drop', 50, 60_000)).toHaveLength(1);
    expect(await claimExecutions(db.pool, coord, 'rate-drop', 50, 60_000)).toEqual([]);
    const parked = async () => Number((await db.pool.query(`SELECT count(*) FROM executions WHERE task = 'rate-drop' AND waiting_on = 'rate:tenant=a'`)).rows[0].count);
    expect(await parked()).toBe(3);
    // the Keys view still sees the parked rows' wait
    expect((await readKeyOldestWaits(db.pool, 'rate-drop', 1, ['tenant=a'], 200)).map((r) => r.group_key)).toEqual(['tenant=a']);
    await applyTasks(db.pool, [def(false)]);
    expect(await parked()).toBe(0);
    expect(await claimExecutions(db.pool, coord, 'rate-drop', 50, 60_000)).toHaveLength(3);
  });

  it('all or nothing with the concurrency slots: a row needs its slot and its token, and a refused row spends no token', async () => {
    await applyTasks(db.pool, [
      {
        name: 'rate-both',
        partitions: 1,
        concurrency: 100,
        groups: [
          { name: 'tenant', limit: 1, keyPath: 'tenant', rate: { limit: 1, per: HOUR, burst: 5 } },
          { name: 'region', limit: 100, keyPath: 'region', rate: { limit: 1, per: HOUR, burst: 1 } },
        ],
      },
    ]);
    const coord = await fakeCoordinator(db.pool, ['rate-both']);
    await enqueue(db.pool, 'rate-both', [
      { payload: { tenant: 'a', region: 'eu' } },
      { payload: { tenant: 'a', region: 'us' } }, // tenant a has no slot left: refused, us keeps its tokens
      { payload: { tenant: 'b', region: 'eu' } },
      { payload: { tenant: 'c', region: 'eu' } }, // eu's 2 tokens (burst 1) are spent by a and b
      { payload: { tenant: 'd', region: 'us' } },
    ]);
    const got = await claimExecutions(db.pool, coord, 'rate-both', 50, 60_000);
    expect(got.map((e) => (e.payload as { tenant: string }).tenant).sort()).toEqual(['a', 'b', 'd']);
    const state = await tats('rate-both');
    // tenant a, b, d one token each; region eu two, us one
    expect(state.map((r) => [r.scope, Math.round(r.ahead / HOUR)])).toEqual([
      ['region=eu', 2],
      ['region=us', 1],
      ['tenant=a', 1],
      ['tenant=b', 1],
      ['tenant=d', 1],
    ]);
  });

  it("the task's own rate, with costs from the payload: a costly execution is admitted while any allowance is left, then the task is in debt", async () => {
    await applyTasks(db.pool, [{ name: 'rate-task', partitions: 2, concurrency: 100, rate: { limit: 10, per: HOUR, burst: 4 }, rateCostPath: 'w' }]);
    const coord = await fakeCoordinator(db.pool, ['rate-task']);
    await enqueue(db.pool, 'rate-task', [
      { payload: { w: 2, tag: 'a' } },
      { payload: { w: 0, tag: 'free' } },
      { payload: { tag: 'one' } }, // no cost: 1
      { payload: { w: 'x', tag: 'str' } }, // not a number: 1
      { payload: { w: 7, tag: 'big' } },
      { payload: { w: 1, tag: 'after' } },
    ]);
    const got = await claimExecutions(db.pool, coord, 'rate-task', 50, 60_000);
    // before each: 0, 2, 2, 3, 4 ≤ burst 4 → admitted; 'after' has 11 before it → held
    expect(got.map((e) => (e.payload as { tag: string }).tag)).toEqual(['a', 'free', 'one', 'str', 'big']);
    const [task] = await tats('rate-task');
    expect(task!.scope).toBe('=');
    expect(Math.round(task!.ahead / (HOUR / 10))).toBe(11); // 11 cost units × T (6 minutes)
    // the debt is paid back before anything else starts: 11 − 4 = 7 intervals
    await elapse('rate-task', 6 * (HOUR / 10));
    expect(await claimExecutions(db.pool, coord, 'rate-task', 50, 60_000)).toEqual([]);
    await elapse('rate-task', HOUR / 10);
    expect((await claimExecutions(db.pool, coord, 'rate-task', 50, 60_000)).map((e) => (e.payload as { tag: string }).tag)).toEqual(['after']);
  });

  it('unit costs on an ungrouped task: burst + 1 at once, then one per interval as time really passes', async () => {
    await applyTasks(db.pool, [{ name: 'rate-real', partitions: 1, concurrency: 100, rate: { limit: 5, per: 1000, burst: 1 } }]);
    const coord = await fakeCoordinator(db.pool, ['rate-real']);
    await enqueue(db.pool, 'rate-real', Array.from({ length: 20 }, (_, i) => ({ payload: { i } })));
    const starts: number[] = [];
    const t0 = Date.now();
    while (Date.now() - t0 < 1500) {
      const got = await claimExecutions(db.pool, coord, 'rate-real', 50, 60_000);
      for (const _ of got) starts.push(Date.now() - t0);
      await finish('rate-real', got);
      await sleep(10);
    }
    expect(starts.slice(0, 2).every((s) => s < 150)).toBe(true); // burst 1: two at once
    // 1.5 s at 5/s after the two: 7 more at most (one per 200 ms), 5 at least on a slow box
    expect(starts.length).toBeGreaterThanOrEqual(2 + 5);
    expect(starts.length).toBeLessThanOrEqual(2 + 7);
    for (let i = 2; i < starts.length; i++) expect(starts[i]! - starts[i - 2]!).toBeGreaterThanOrEqual(150);
  });

  it('slot GC keeps the state bounded: rows whose TAT has passed go (nothing changes for the claim), rows ahead stay', async () => {
    await applyTasks(db.pool, [{ name: 'rate-gc', partitions: 1, concurrency: 100, groups: [{ name: 'k', limit: 100, keyPath: 'k', rate: { limit: 1, per: HOUR, burst: 0 } }] }]);
    const coord = await fakeCoordinator(db.pool, ['rate-gc']);
    await enqueue(db.pool, 'rate-gc', ['a', 'b', 'c', 'a'].map((k) => ({ payload: { k } })));
    expect(await claimExecutions(db.pool, coord, 'rate-gc', 50, 60_000)).toHaveLength(3);
    await db.pool.query(`UPDATE rate_state SET tat_ms = tat_ms - $1 WHERE task = 'rate-gc' AND group_key IN ('a', 'b')`, [HOUR + 1000]);
    const before = (await db.pool.query(`SELECT count(*)::int AS n FROM rate_state WHERE tat_ms < extract(epoch FROM clock_timestamp()) * 1000`)).rows[0].n;
    expect(await gcRateState(db.pool)).toBe(before);
    expect((await tats('rate-gc')).map((r) => r.scope)).toEqual(['k=c']);
    // a's row is gone and a's next row is claimable: the same as its past TAT said
    expect((await claimExecutions(db.pool, coord, 'rate-gc', 50, 60_000)).map((e) => (e.payload as { k: string }).k)).toEqual(['a']);
  });

  it('why-waiting says which rate holds a row and when its next slot is, and the claim agrees', async () => {
    await applyTasks(db.pool, [
      { name: 'rate-why', partitions: 1, concurrency: 100, rate: { limit: 10, per: 60_000, burst: 0 }, groups: [{ name: 'tenant', limit: 100, keyPath: 'tenant', rate: { limit: 1, per: HOUR, burst: 0, overrides: { acme: { per: 10_000 } } } }] },
    ]);
    const coord = await fakeCoordinator(db.pool, ['rate-why']);
    const e = await enqueue(db.pool, 'rate-why', [{ payload: { tenant: 'acme' } }, { payload: { tenant: 'acme' } }]);
    const why = async () => whyWaitingFromRow((await readWhyWaiting(db.pool, e.executions[1]!.id!, 10_000))!);
    expect((await why()).reason).toBe('claimable');
    expect(await claimExecutions(db.pool, coord, 'rate-why', 50, 60_000)).toHaveLength(1);
    const held = await why();
    expect(held.holds.map((h) => h.reason)).toEqual(['rate_limited', 'task_rate_limited']);
    expect(held.holds[0]).toMatchObject({ key: 'tenant=acme', limit: 1, per: 10_000, burst: 0, override: true });
    const next = (held.holds[0] as { nextInMs: number }).nextInMs;
    expect(next).toBeGreaterThan(9000);
    expect(next).toBeLessThanOrEqual(10_000);
    expect(held.text).toMatch(/^rate limit tenant=acme: next slot in (9\.\d|10\.0) s \(1 per 10000 ms, override\)$/);
    expect(await claimExecutions(db.pool, coord, 'rate-why', 50, 60_000)).toEqual([]);
    // the key's slot comes 10 s later, the task's (6 s per execution) before it
    await elapse('rate-why', 10_000);
    expect((await why()).reason).toBe('claimable');
    expect(await claimExecutions(db.pool, coord, 'rate-why', 50, 60_000)).toHaveLength(1);
  });
});
