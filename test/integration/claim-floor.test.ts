// The claim floor (issue #18, migration 20261203000100000_claim_floor): every scan of a
// partition's head starts at a lower bound on its claimable rows' (claim_at, id), which each
// claim raises past what it claimed. Every path that makes a row claimable below it must
// lower it in the same transaction, or the row is never claimed: one test per path, each
// with the floor first raised above where the row lands. And the reconciler finds and
// repairs a floor above a claimable row.
import { describe, it, expect, beforeAll } from 'vitest';
import { testDatabase, type TestDatabase } from './db';
import { applyTasks, fakeCoordinator, foldAllSlotDeltas } from '../support/engine-fixtures';
import { enqueue } from '../../server/services/enqueue';
import { claimExecutions, type ClaimedExecution } from '../../server/db/claim-executions';
import { finishExecutions } from '../../server/db/finish-executions';
import { finishAndClaimExecutions } from '../../server/db/finish-and-claim-executions';
import { runExecutionNow } from '../../server/db/run-execution-now';
import { reconcileTask } from '../../server/db/reconcile-counters';
import { withTransaction } from '../../server/db/pool';
import { releaseParkedExecutions } from '../../server/db/replay-batch';
import { drainOverflow } from '../../server/db/drain-overflow';

let db: TestDatabase;
beforeAll(async () => {
  db = await testDatabase();
});

const DAY = 86_400_000;
const tags = (got: ClaimedExecution[]) => got.map((e) => (e.payload as { tag: string }).tag);
const ok = (got: ClaimedExecution[]) => got.map((e) => ({ id: e.id, leaseToken: e.leaseToken, outcome: 'succeeded' as const }));

/** partition 0's stored floor and its first claimable row, both as (claim_at text, id) */
async function floorAndHead(task: string) {
  const r = await db.pool.query<{ floor: string; floor_id: number; head: string | null; head_id: number | null; low: unknown }>(
    `SELECT ps.claim_floor::text AS floor, ps.claim_floor_id::int AS floor_id, t.claim_floor_low AS low,
            (SELECT e.claim_at::text FROM executions e WHERE e.task = $1 AND e.partition = 0 AND e.state = 'queued' AND e.waiting_on IS NULL ORDER BY e.claim_at, e.id LIMIT 1) AS head,
            (SELECT e.id::int FROM executions e WHERE e.task = $1 AND e.partition = 0 AND e.state = 'queued' AND e.waiting_on IS NULL ORDER BY e.claim_at, e.id LIMIT 1) AS head_id
     FROM partition_stats ps JOIN task_counters t ON t.task = ps.task WHERE ps.task = $1 AND ps.partition = 0`,
    [task],
  );
  return r.rows[0]!;
}

describe('the claim floor', () => {
  it('rises to the first row still queued after each claim, and to infinity when none is', async () => {
    await applyTasks(db.pool, [{ name: 'cf-rise', partitions: 1, concurrency: 100 }]);
    const me = await fakeCoordinator(db.pool, ['cf-rise']);
    await enqueue(db.pool, 'cf-rise', Array.from({ length: 10 }, (_, i) => ({ payload: { tag: `a${i}` } })));
    expect((await floorAndHead('cf-rise')).floor).toBe('-infinity');
    const got = await claimExecutions(db.pool, me, 'cf-rise', 4, 60_000);
    const f = await floorAndHead('cf-rise');
    expect([f.floor, f.floor_id]).toEqual([f.head, f.head_id]);
    const rest = await claimExecutions(db.pool, me, 'cf-rise', 100, 60_000);
    expect(tags([...got, ...rest])).toEqual(Array.from({ length: 10 }, (_, i) => `a${i}`));
    expect((await floorAndHead('cf-rise')).floor).toBe('infinity');
    // a new enqueue brings it down to itself (at most 1 ms below its claim_at)
    await enqueue(db.pool, 'cf-rise', [{ payload: { tag: 'b' } }]);
    const g = await floorAndHead('cf-rise');
    expect(g.floor_id).toBe(0);
    expect(Date.parse(g.head! + 'Z') - Date.parse(g.floor + 'Z')).toBeGreaterThanOrEqual(0);
    expect(Date.parse(g.head! + 'Z') - Date.parse(g.floor + 'Z')).toBeLessThanOrEqual(2);
    expect(tags(await claimExecutions(db.pool, me, 'cf-rise', 100, 60_000))).toEqual(['b']);
  });

  it('the enqueue lowers it: a high priority row ranks before the floor the last claim left', async () => {
    await applyTasks(db.pool, [{ name: 'cf-prio', partitions: 1, concurrency: 100, priority: { agingMs: DAY } }]);
    const me = await fakeCoordinator(db.pool, ['cf-prio']);
    await enqueue(db.pool, 'cf-prio', Array.from({ length: 6 }, (_, i) => ({ payload: { tag: `low${i}` } })));
    await claimExecutions(db.pool, me, 'cf-prio', 3, 60_000);
    await enqueue(db.pool, 'cf-prio', [{ payload: { tag: 'high' }, priority: 5 }]);
    expect(tags(await claimExecutions(db.pool, me, 'cf-prio', 2, 60_000))).toEqual(['high', 'low3']);
  });

  /** r and h running, n0 claimed after them, n1–n3 queued: the floor at n1, above r and h.
   *  The finish items return r as a retry due now and h as a hand-back. */
  async function retryAndHandBack(task: string) {
    await applyTasks(db.pool, [{ name: task, partitions: 1, concurrency: 100 }]);
    const me = await fakeCoordinator(db.pool, [task]);
    await enqueue(db.pool, task, [{ payload: { tag: 'r' } }, { payload: { tag: 'h' } }]);
    const [r, h] = await claimExecutions(db.pool, me, task, 2, 60_000);
    await enqueue(db.pool, task, Array.from({ length: 4 }, (_, i) => ({ payload: { tag: `n${i}` } })));
    await claimExecutions(db.pool, me, task, 1, 60_000); // n0: the floor is at n1 now
    expect((await floorAndHead(task)).floor_id).toBeGreaterThan(h!.id);
    const items = [
      { id: r!.id, leaseToken: r!.leaseToken, outcome: 'retry' as const, runAt: new Date(Date.now() - 60_000), error: 'boom' },
      { id: h!.id, leaseToken: h!.leaseToken, outcome: 'release' as const },
    ];
    return { me, items };
  }

  it('a finish lowers it: a retry due at once and a hand-back that keeps its place are claimed before newer rows', async () => {
    const { me, items } = await retryAndHandBack('cf-retry');
    await finishExecutions(db.pool, 'cf-retry', items);
    expect(tags(await claimExecutions(db.pool, me, 'cf-retry', 3, 60_000))).toEqual(['r', 'h', 'n1']);
  });

  it("a cycle's finish lowers it for its own claim: the retry and the hand-back are claimed in the same cycle, before newer rows, and the counters are the finish's and the claim's", async () => {
    // sluice_cycle's finish leaves its partition moves to the claim (one version of the row
    // a cycle): the claim must still scan from the floor the finish lowered
    const { me, items } = await retryAndHandBack('cf-cycle');
    const cycle = await finishAndClaimExecutions(db.pool, me, 'cf-cycle', items, 3, 60_000);
    expect(tags(cycle.claimed)).toEqual(['r', 'h', 'n1']);
    // n2 and n3 are left: the floor at n2, depth 2; running: n0 and the three just claimed
    const f = await floorAndHead('cf-cycle');
    expect([f.floor, f.floor_id]).toEqual([f.head, f.head_id]);
    const ps = await db.pool.query(`SELECT depth::int, in_flight FROM partition_stats WHERE task = 'cf-cycle'`);
    expect(ps.rows).toEqual([{ depth: 2, in_flight: 4 }]);
  });

  it('a release lowers it: a row set aside on a full key comes back before the floor, in a cycle, in any partition', async () => {
    // 2 partitions, one member: the released row's partition is not one the finish touches
    await applyTasks(db.pool, [{ name: 'cf-rel', partitions: 2, concurrency: 100, groups: [{ name: 'k', limit: 1, keyPath: 'k' }], routing: { strategy: 'hash', keyPath: 'p' } }]);
    const me = await fakeCoordinator(db.pool, ['cf-rel']);
    // key a: 400 rows on one partition clog its head (the claim sets them aside)
    await enqueue(db.pool, 'cf-rel', Array.from({ length: 400 }, (_, i) => ({ payload: { tag: `a${i}`, k: 'a', p: 'x' } })));
    const first = await claimExecutions(db.pool, me, 'cf-rel', 10, 60_000);
    expect(tags(first)).toEqual(['a0']);
    expect(await claimExecutions(db.pool, me, 'cf-rel', 10, 60_000)).toEqual([]); // a is full: its rows go aside
    const aside = await db.pool.query(`SELECT count(*)::int AS n FROM executions WHERE task = 'cf-rel' AND waiting_on = 'k=a'`);
    expect(aside.rows[0].n).toBeGreaterThan(0);
    // newer rows of other keys, claimed: the floors rise past where a's rows were
    await enqueue(db.pool, 'cf-rel', Array.from({ length: 20 }, (_, i) => ({ payload: { tag: `o${i}`, k: `o${i}`, p: `q${i}` } })));
    const others = await claimExecutions(db.pool, me, 'cf-rel', 100, 60_000);
    expect(others.length).toBeGreaterThan(0);
    // a0 finishes in a cycle: a1 is released with its old claim_at and claimed by the same cycle
    const r = await finishAndClaimExecutions(db.pool, me, 'cf-rel', ok(first), 10, 60_000);
    expect(tags(r.claimed)).toContain('a1');
  });

  it('a fair pass\'s release lowers it: a key below its share gets its set-aside rows back before the floor', async () => {
    await applyTasks(db.pool, [{ name: 'cf-fair', partitions: 1, concurrency: 10, order: 'fair', groups: [{ name: 'tenant', limit: 1, keyPath: 't' }] }]);
    const me = await fakeCoordinator(db.pool, ['cf-fair']);
    await enqueue(db.pool, 'cf-fair', Array.from({ length: 400 }, (_, i) => ({ payload: { tag: `a${i}`, t: 'a' } })));
    const [a0] = await claimExecutions(db.pool, me, 'cf-fair', 10, 60_000);
    expect(tags([a0!])).toEqual(['a0']);
    // a is full: its rows set aside on it, as a claim that found the head clogged leaves them
    // (out of the claim index: no floor to keep)
    await db.pool.query(`UPDATE executions SET waiting_on = 'tenant=a' WHERE task = 'cf-fair' AND state = 'queued'`);
    // newer rows of other tenants, claimed: the floor rises past where a's rows were
    await enqueue(db.pool, 'cf-fair', Array.from({ length: 5 }, (_, i) => ({ payload: { tag: `b${i}`, t: `b${i}` } })));
    expect(tags(await claimExecutions(db.pool, me, 'cf-fair', 10, 60_000)).sort()).toEqual(['b0', 'b1', 'b2', 'b3', 'b4']);
    // a0 finishes in a cycle (a fair key's rows are released by the claim's fair pass, not by
    // the finish; a claim of its own would stop at the cheap exit, nothing being claimable)
    await foldAllSlotDeltas(db.pool);
    const r = await finishAndClaimExecutions(db.pool, me, 'cf-fair', ok([a0!]), 10, 60_000);
    expect(tags(r.claimed)).toEqual(['a1']);
  });

  it('a stream promotion lowers it: the next row of a stream, of high priority, is claimed before the floor', async () => {
    await applyTasks(db.pool, [{ name: 'cf-stream', partitions: 1, concurrency: 100, stream: { keyPath: 's' }, priority: { agingMs: DAY } }]);
    const me = await fakeCoordinator(db.pool, ['cf-stream']);
    await enqueue(db.pool, 'cf-stream', [{ payload: { tag: 's1', s: 'one' } }, { payload: { tag: 's2', s: 'one' }, priority: 5 }]);
    const [s1] = await claimExecutions(db.pool, me, 'cf-stream', 10, 60_000);
    expect(tags([s1!])).toEqual(['s1']);
    await enqueue(db.pool, 'cf-stream', Array.from({ length: 3 }, (_, i) => ({ payload: { tag: `x${i}`, s: `x${i}` } })));
    expect(tags(await claimExecutions(db.pool, me, 'cf-stream', 1, 60_000))).toEqual(['x0']);
    await finishExecutions(db.pool, 'cf-stream', ok([s1!]));
    expect(tags(await claimExecutions(db.pool, me, 'cf-stream', 2, 60_000))).toEqual(['s2', 'x1']);
  });

  /** A task whose floor the last claim left at a row delayed an hour (the first row still
   *  queued): the row's id and the coordinator. */
  async function delayedRowAtTheFloor(task: string, tag: string) {
    await applyTasks(db.pool, [{ name: task, partitions: 1, concurrency: 100 }]);
    const me = await fakeCoordinator(db.pool, [task]);
    const [delayed] = (await enqueue(db.pool, task, [{ payload: { tag }, delayMs: 3_600_000 }])).executions;
    await enqueue(db.pool, task, [{ payload: { tag: 'n0' } }]);
    expect(tags(await claimExecutions(db.pool, me, task, 5, 60_000))).toEqual(['n0']);
    expect((await floorAndHead(task)).floor_id).toBe(delayed!.id);
    return { me, id: delayed!.id! };
  }

  it('run now lowers it: a delayed row, the floor the last claim left, is due at once', async () => {
    const { me, id } = await delayedRowAtTheFloor('cf-now', 'later');
    await withTransaction(db.pool, (tx) => runExecutionNow(tx, 'cf-now', id));
    expect(tags(await claimExecutions(db.pool, me, 'cf-now', 5, 60_000))).toEqual(['later']);
  });

  it('a replay\'s release lowers it: a parked row due now is claimed, not left above the floor', async () => {
    // a replay parks its rows (run_at far ahead) until it has set their attempts
    const { me, id } = await delayedRowAtTheFloor('cf-replay', 'replayed');
    expect(await releaseParkedExecutions(db.pool, 'cf-replay', [id], [2])).toBe(1);
    const got = await claimExecutions(db.pool, me, 'cf-replay', 5, 60_000);
    expect(got.map((e) => [(e.payload as { tag: string }).tag, e.attempts])).toEqual([['replayed', 3]]);
  });

  it('the spill drain lowers it: rows parked in overflow come back into a partition whose floor is at infinity', async () => {
    await applyTasks(db.pool, [{ name: 'cf-spill', partitions: 1, concurrency: 100, backpressure: { maxDepth: 2, policy: 'spill' } }]);
    const me = await fakeCoordinator(db.pool, ['cf-spill']);
    const r = await enqueue(db.pool, 'cf-spill', Array.from({ length: 5 }, (_, i) => ({ payload: { tag: `s${i}` } })));
    expect(r.spilled).toBe(3);
    expect(tags(await claimExecutions(db.pool, me, 'cf-spill', 5, 60_000))).toEqual(['s0', 's1']);
    expect((await floorAndHead('cf-spill')).floor).toBe('infinity');
    await db.pool.query(`UPDATE partition_stats SET depth = 0 WHERE task = 'cf-spill'`); // as the finish of s0, s1 would
    const { drained } = await withTransaction(db.pool, (tx) => drainOverflow(tx, 'cf-spill', 2));
    expect(drained).toBeGreaterThan(0);
    expect(tags(await claimExecutions(db.pool, me, 'cf-spill', 5, 60_000))).toEqual(['s2', 's3', 's4'].slice(0, drained));
  });

  it('the reconciler finds a floor above a claimable row, logs it and repairs it', async () => {
    await applyTasks(db.pool, [{ name: 'cf-rec', partitions: 1, concurrency: 100 }]);
    const me = await fakeCoordinator(db.pool, ['cf-rec']);
    await enqueue(db.pool, 'cf-rec', Array.from({ length: 3 }, (_, i) => ({ payload: { tag: `r${i}` } })));
    await db.pool.query(`UPDATE partition_stats SET claim_floor = 'infinity' WHERE task = 'cf-rec'`);
    expect(await claimExecutions(db.pool, me, 'cf-rec', 10, 60_000)).toEqual([]);
    const m = await withTransaction(db.pool, (tx) => reconcileTask(tx, 'cf-rec'));
    expect(m.filter((x) => x.counter === 'partition.claim_floor').map((x) => [x.partition, x.recorded])).toEqual([[0, Number.MAX_SAFE_INTEGER]]);
    expect(tags(await claimExecutions(db.pool, me, 'cf-rec', 10, 60_000))).toEqual(['r0', 'r1', 'r2']);
    expect((await withTransaction(db.pool, (tx) => reconcileTask(tx, 'cf-rec'))).filter((x) => x.counter === 'partition.claim_floor')).toEqual([]);
  });
});
