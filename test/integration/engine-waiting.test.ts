// Waiting rows (migration 20261123000600000): a saturated key's queued rows are set aside
// (waiting_on) by the claim, leave the claim index, and come back — oldest first, as many
// as the key has room for — when a finish frees the key's slots, when a config apply
// raises or removes the limit, or when the reconciler finds room a finish missed.
// SQL-level: claims and finishes through the functions, no coordinator process.
import { describe, it, expect, beforeAll, onTestFinished } from 'vitest';
import { testDatabase, type TestDatabase } from './db';
import { applyTasks, claimIndexReads, fakeCoordinator } from '../support/engine-fixtures';
import { enqueue } from '../../server/services/enqueue';
import { claimExecutions, type ClaimedExecution } from '../../server/db/claim-executions';
import { finishExecutions } from '../../server/db/finish-executions';
import { finishAndClaimExecutions } from '../../server/db/finish-and-claim-executions';
import { getExecution } from '../../server/presenters/execution';
import { readPartitionHeadKeys } from '../../server/db/read-partition-head-keys';
import { runServiceOnce } from '../../server/db/maintenance-runner';
import { reconciler } from '../../server/coordinator/maintenance/reconciler';
import { reconcileTask } from '../../server/db/reconcile-counters';
import { createPool, withTransaction } from '../../server/db/pool';
import type { TaskDefinitionInput } from '../../server/core/task-definition';

let db: TestDatabase;
beforeAll(async () => {
  db = await testDatabase();
});

const succeed = (rows: ClaimedExecution[]) => rows.map((e) => ({ id: e.id, leaseToken: e.leaseToken, outcome: 'succeeded' as const }));

async function waiting(task: string): Promise<Record<string, number>> {
  const r = await db.pool.query<{ k: string; n: number }>(
    `SELECT waiting_on AS k, count(*)::int AS n FROM executions WHERE task = $1 AND state = 'queued' AND waiting_on IS NOT NULL GROUP BY 1 ORDER BY 1`,
    [task],
  );
  return Object.fromEntries(r.rows.map((x) => [x.k, x.n]));
}

describe('rows waiting on a saturated key', () => {
  it('are set aside once, so later claims and idle polls do not read them', async () => {
    await applyTasks(db.pool, [{ name: 'hog', partitions: 1, concurrency: 50, groups: [{ name: 'tenant', limit: 1, keyPath: 't' }], backpressure: { maxDepth: 100_000 } }]);
    const me = await fakeCoordinator(db.pool, ['hog']);
    // Every claim of this test on one connection: its index statistics are flushed
    // before the measured window (claimIndexReads), none arrive late from another.
    const one = createPool(db.url, 1);
    onTestFinished(() => one.end());
    await enqueue(db.pool, 'hog', Array.from({ length: 1000 }, () => ({ payload: { t: 'hog' } })));
    const first = await claimExecutions(one, me, 'hog', 10, 60_000);
    expect(first).toHaveLength(1);
    // The next claim meets the saturated key and sets its rows aside (the head of the
    // partition, in passes of ~300 rows; more as later claims reach them).
    expect(await claimExecutions(one, me, 'hog', 10, 60_000)).toEqual([]);
    while ((await waiting('hog'))['tenant=hog'] !== 999) expect(await claimExecutions(one, me, 'hog', 10, 60_000)).toEqual([]);
    // Depth and the API still count them as queued, and the API says what they wait for.
    const depth = await db.pool.query(`SELECT sum(depth)::int AS d FROM partition_stats WHERE task = 'hog'`);
    expect(depth.rows[0].d).toBe(999);
    const aWaitingId = (await db.pool.query(`SELECT max(id) AS id FROM executions WHERE task = 'hog' AND waiting_on IS NOT NULL`)).rows[0].id;
    expect(await getExecution(db.pool, Number(aWaitingId))).toMatchObject({ state: 'queued', waitingOn: 'tenant=hog' });
    expect(await getExecution(db.pool, first[0]!.id)).toMatchObject({ state: 'running', waitingOn: null });
    // The partition drill-down's head sample still sees the saturated key's backlog.
    expect(await readPartitionHeadKeys(one, 'hog', 0, 100)).toEqual({ sampled: 100, keys: [{ group_key: 'tenant=hog', executions: 100 }] });

    // From now on idle polls and the claim of a newly arrived free key fetch (almost) none
    // of the backlog's rows: before, each of them read all 999 rows of the saturated key.
    // (The set-aside rows' old entries linger in the claim index as dead entries until a
    // scan finds them dead to every snapshot, as for any claimed row; `reads` counts
    // those, `fetches` the live rows a scan had to look at.)
    const { fetches, value } = await claimIndexReads(db.pool, one, async (c) => {
      for (let i = 0; i < 5; i++) expect(await claimExecutions(c, me, 'hog', 10, 60_000)).toEqual([]);
      await enqueue(db.pool, 'hog', [{ payload: { t: 'free' } }]);
      return claimExecutions(c, me, 'hog', 10, 60_000);
    });
    expect(value.map((e) => e.groups)).toEqual([{ tenant: 'free' }]);
    expect(fetches).toBeLessThan(50);
  });

  it('come back oldest first as slots free, so a key runs in enqueue order across partitions', async () => {
    await applyTasks(db.pool, [{ name: 'order', partitions: 3, concurrency: 50, groups: [{ name: 'tenant', limit: 2, keyPath: 't' }] }]);
    const me = await fakeCoordinator(db.pool, ['order']);
    await enqueue(db.pool, 'order', Array.from({ length: 30 }, (_, i) => ({ payload: { t: 'a', i } })));
    const ran: number[] = [];
    let waited = 0;
    for (let round = 0; round < 100 && ran.length < 30; round++) {
      const running = await claimExecutions(db.pool, me, 'order', 50, 60_000);
      expect(running.length).toBeLessThanOrEqual(2);
      // a claim while the key is saturated sets its rows aside
      expect(await claimExecutions(db.pool, me, 'order', 50, 60_000)).toEqual([]);
      waited = Math.max(waited, Object.values(await waiting('order')).reduce((a, b) => a + b, 0));
      ran.push(...running.map((e) => (e.payload as { i: number }).i));
      // finish one at a time: each finish releases the oldest waiting row
      for (const e of running) await finishExecutions(db.pool, 'order', succeed([e]));
    }
    expect(waited).toBe(28);
    expect(ran).toEqual(Array.from({ length: 30 }, (_, i) => i));
    expect(await waiting('order')).toEqual({});
  });

  it('a row waits on one key at a time and still needs every key: limits hold, nothing is lost', async () => {
    await applyTasks(db.pool, [
      { name: 'two', partitions: 2, concurrency: 100, groups: [{ name: 'tenant', limit: 3, keyPath: 't' }, { name: 'key', limit: 1, keyPath: 'k' }] },
    ]);
    const me = await fakeCoordinator(db.pool, ['two']);
    await enqueue(db.pool, 'two', Array.from({ length: 400 }, (_, i) => ({ payload: { t: `t${i % 4}`, k: `k${i % 9}` } })));
    const live = new Map<string, number>();
    let done = 0;
    let running: ClaimedExecution[] = [];
    for (let round = 0; round < 2000 && done < 400; round++) {
      const got = await claimExecutions(db.pool, me, 'two', 20, 60_000);
      for (const e of got) for (const k of [`t=${e.groups.tenant}`, `k=${e.groups.key}`]) live.set(k, (live.get(k) ?? 0) + 1);
      for (const [k, n] of live) expect(n, k).toBeLessThanOrEqual(k.startsWith('t=') ? 3 : 1);
      running = [...running, ...got];
      // finish a random half of what runs
      const fin = running.filter(() => Math.random() < 0.5);
      running = running.filter((e) => !fin.includes(e));
      for (const e of fin) for (const k of [`t=${e.groups.tenant}`, `k=${e.groups.key}`]) live.set(k, live.get(k)! - 1);
      done += (await finishExecutions(db.pool, 'two', succeed(fin))).size;
    }
    expect(done).toBe(400);
    expect(await waiting('two')).toEqual({});
  });

  it('a config apply that raises or removes a limit releases the rows waiting on it', async () => {
    const def = (limit: number | null): TaskDefinitionInput => ({
      name: 'raise',
      partitions: 1,
      concurrency: 50,
      groups: limit === null ? [{ name: 'other', limit: 1, keyPath: 'o' }] : [{ name: 'tenant', limit, keyPath: 't' }],
    });
    await applyTasks(db.pool, [def(1)]);
    const me = await fakeCoordinator(db.pool, ['raise']);
    await enqueue(db.pool, 'raise', Array.from({ length: 20 }, () => ({ payload: { t: 'a' } })));
    const held = await claimExecutions(db.pool, me, 'raise', 50, 60_000);
    expect(held).toHaveLength(1);
    expect(await claimExecutions(db.pool, me, 'raise', 50, 60_000)).toEqual([]);
    expect(await waiting('raise')).toEqual({ 'tenant=a': 19 });
    // 1 → 5 while one still runs: room for 4 more, released by the apply itself
    await applyTasks(db.pool, [def(5)]);
    expect(await waiting('raise')).toEqual({ 'tenant=a': 15 });
    expect(await claimExecutions(db.pool, me, 'raise', 50, 60_000)).toHaveLength(4);
    // the group removed: nothing to wait for any more
    expect(await claimExecutions(db.pool, me, 'raise', 50, 60_000)).toEqual([]);
    await applyTasks(db.pool, [def(null)]);
    expect(await waiting('raise')).toEqual({});
    expect(await claimExecutions(db.pool, me, 'raise', 50, 60_000)).toHaveLength(15);
  });

  it('the reconciler releases rows a finish could not (a repaired in_flight) and logs it', async () => {
    await applyTasks(db.pool, [{ name: 'drift', partitions: 1, concurrency: 50, groups: [{ name: 'tenant', limit: 2, keyPath: 't' }] }]);
    const me = await fakeCoordinator(db.pool, ['drift']);
    await enqueue(db.pool, 'drift', Array.from({ length: 10 }, () => ({ payload: { t: 'a' } })));
    expect(await claimExecutions(db.pool, me, 'drift', 50, 60_000)).toHaveLength(2);
    expect(await claimExecutions(db.pool, me, 'drift', 50, 60_000)).toEqual([]);
    expect(await waiting('drift')).toEqual({ 'tenant=a': 8 });
    // Drift: the key's count says 2 running, but one execution vanished from under it.
    await db.pool.query(`UPDATE executions SET state = 'succeeded', finished_at = now() WHERE id = (SELECT min(id) FROM executions WHERE task = 'drift' AND state = 'running')`);
    const r = await runServiceOnce(db.pool, reconciler, { intervalMs: 0 }, { coordinatorId: me, staleMs: 60_000, log: () => {} });
    expect(r.ran).toBe(true);
    expect(await waiting('drift')).toEqual({ 'tenant=a': 7 });
    const log = await db.pool.query(`SELECT counter, recorded, actual FROM reconcile_log WHERE task = 'drift' AND counter = 'group.waiting_with_room'`);
    expect(log.rows.map((x) => ({ ...x, recorded: Number(x.recorded), actual: Number(x.actual) }))).toEqual([{ counter: 'group.waiting_with_room', recorded: 1, actual: 0 }]);
    expect(await claimExecutions(db.pool, me, 'drift', 50, 60_000)).toHaveLength(1);
  });

  it('the reconciler leaves a row waiting behind a released one not yet claimed (the demo\'s false repair), and still releases a stranded one', async () => {
    // The demo (send-email, globex limit 8, 2026-11-25): a cycle finished 2 of the key,
    // released the 2 oldest waiting rows and, with 1 free local slot, claimed 1 of them; the
    // reconciler ran before the next claim took the other, counted limit − running = 1 as
    // room and released (and logged as an engine bug) the next waiting row as well.
    await applyTasks(db.pool, [{ name: 'handoff', partitions: 1, concurrency: 50, groups: [{ name: 'tenant', limit: 2, keyPath: 't' }] }]);
    const me = await fakeCoordinator(db.pool, ['handoff']);
    await enqueue(db.pool, 'handoff', Array.from({ length: 6 }, (_, i) => ({ payload: { t: 'a', i } })));
    const held = await claimExecutions(db.pool, me, 'handoff', 50, 60_000);
    expect(held).toHaveLength(2);
    expect(await claimExecutions(db.pool, me, 'handoff', 50, 60_000)).toEqual([]);
    expect(await waiting('handoff')).toEqual({ 'tenant=a': 4 });
    const cycle = await finishAndClaimExecutions(db.pool, me, 'handoff', succeed(held), 1, 60_000);
    expect(cycle.claimed.map((e) => (e.payload as { i: number }).i)).toEqual([2]);
    // 1 running of 2, row 3 released (claimable), rows 4 and 5 waiting: nothing is stranded
    expect(await waiting('handoff')).toEqual({ 'tenant=a': 2 });
    // (the reconciler's pass over this task, in one transaction as its service runs it)
    const rec = async () => withTransaction(db.pool, (c) => reconcileTask(c, 'handoff'));
    expect(await rec()).toEqual([]);
    expect(await waiting('handoff')).toEqual({ 'tenant=a': 2 });
    const logged = async () =>
      (await db.pool.query(`SELECT counter, recorded::int, actual::int FROM reconcile_log WHERE task = 'handoff' ORDER BY id`)).rows;
    expect(await logged()).toEqual([]);
    // The next claim takes row 3 and the key is full again; each finish then hands the
    // next waiting row on, in order.
    const three = await claimExecutions(db.pool, me, 'handoff', 50, 60_000);
    expect(three.map((e) => (e.payload as { i: number }).i)).toEqual([3]);
    await finishExecutions(db.pool, 'handoff', succeed(cycle.claimed));
    expect((await claimExecutions(db.pool, me, 'handoff', 50, 60_000)).map((e) => (e.payload as { i: number }).i)).toEqual([4]);
    expect(await waiting('handoff')).toEqual({ 'tenant=a': 1 });

    // A row that is stranded (a free slot nothing else takes) is still released and logged:
    // finish both running without the finish's release (a hand-edited table stands for a
    // missed one).
    await finishExecutions(db.pool, 'handoff', succeed(three));
    expect(await waiting('handoff')).toEqual({});
    await db.pool.query(`UPDATE executions SET waiting_on = 'tenant=a' WHERE task = 'handoff' AND state = 'queued'`);
    expect(await waiting('handoff')).toEqual({ 'tenant=a': 1 });
    expect(await rec()).toEqual([expect.objectContaining({ counter: 'group.waiting_with_room', recorded: 1, actual: 0 })]);
    expect(await waiting('handoff')).toEqual({});
    expect(await logged()).toEqual([{ counter: 'group.waiting_with_room', recorded: 1, actual: 0 }]);
  });

  it('the reconciler releases a row waiting on a key with room for it beside a claimable row another key holds back', async () => {
    await applyTasks(db.pool, [
      { name: 'twokeys', partitions: 1, concurrency: 50, groups: [{ name: 'tenant', limit: 2, keyPath: 't' }, { name: 'region', limit: 1, keyPath: 'r' }] },
    ]);
    const me = await fakeCoordinator(db.pool, ['twokeys']);
    // r=x is taken by the first row; the second (t=a, r=x) cannot start while it runs
    await enqueue(db.pool, 'twokeys', [{ payload: { t: 'b', r: 'x' } }, { payload: { t: 'a', r: 'x' } }]);
    const first = await claimExecutions(db.pool, me, 'twokeys', 1, 60_000);
    expect(first.map((e) => e.groups)).toEqual([{ tenant: 'b', region: 'x' }]);
    // a row of t=a waits on tenant=a while the key has room for two: the claimable row of t=a
    // beside it (held back by region=x) takes one when it starts, the other is free, so the
    // waiting row is stranded
    await enqueue(db.pool, 'twokeys', [{ payload: { t: 'a', r: 'y' } }]);
    await db.pool.query(`UPDATE executions SET waiting_on = 'tenant=a' WHERE task = 'twokeys' AND payload->>'r' = 'y'`);
    expect(await withTransaction(db.pool, (c) => reconcileTask(c, 'twokeys'))).toEqual([
      expect.objectContaining({ counter: 'group.waiting_with_room', recorded: 1, actual: 0 }),
    ]);
    expect(await waiting('twokeys')).toEqual({});
    expect((await claimExecutions(db.pool, me, 'twokeys', 50, 60_000)).map((e) => e.groups)).toEqual([{ tenant: 'a', region: 'y' }]);
  });

  it('the reconciler leaves a row waiting behind a claimable row of its key that another key holds back (W2: the tenant full), and the key hands on in order', async () => {
    // bench:soak logged 1–3 such "repairs" per run: key limit 1, the tenant at its limit; the
    // key's next row is claimable (its last finish released it) and waits for the tenant,
    // the rows after it wait on the key. Nothing is stranded: the claimable row starts when
    // the tenant frees, and its finish releases the next.
    await applyTasks(db.pool, [
      { name: 'w2shape', partitions: 1, concurrency: 50, groups: [{ name: 'tenant', limit: 1, keyPath: 't' }, { name: 'key', limit: 1, keyPath: 'k' }] },
    ]);
    const me = await fakeCoordinator(db.pool, ['w2shape']);
    await enqueue(db.pool, 'w2shape', [{ payload: { t: 't', k: 'k2', i: 0 } }]);
    const other = await claimExecutions(db.pool, me, 'w2shape', 50, 60_000); // the tenant's slot
    expect(other).toHaveLength(1);
    await enqueue(db.pool, 'w2shape', [1, 2, 3].map((i) => ({ payload: { t: 't', k: 'k1', i } })));
    // as the engine leaves it (a hand edit stands for the finish of k1's previous row, which
    // released row 1 while another key's row took the tenant)
    await db.pool.query(`UPDATE executions SET waiting_on = CASE WHEN payload->>'i' = '1' THEN NULL ELSE 'key=k1' END WHERE task = 'w2shape' AND state = 'queued'`);
    const rec = async () => withTransaction(db.pool, (c) => reconcileTask(c, 'w2shape'));
    expect((await rec()).filter((m) => m.counter === 'group.waiting_with_room')).toEqual([]);
    expect(await waiting('w2shape')).toEqual({ 'key=k1': 2 });
    // the tenant frees: row 1 starts, and its finish hands k1 to row 2, then row 2's to row 3
    await finishExecutions(db.pool, 'w2shape', succeed(other));
    for (const i of [1, 2, 3]) {
      const got = await claimExecutions(db.pool, me, 'w2shape', 50, 60_000);
      expect(got.map((e) => (e.payload as { i: number }).i)).toEqual([i]);
      await finishExecutions(db.pool, 'w2shape', succeed(got));
    }
    expect(await waiting('w2shape')).toEqual({});
    expect((await db.pool.query(`SELECT count(*)::int AS n FROM reconcile_log WHERE task = 'w2shape'`)).rows[0].n).toBe(0);
  });

  it('a release (shutdown) frees the key like a completion does', async () => {
    await applyTasks(db.pool, [{ name: 'resc', partitions: 1, concurrency: 50, groups: [{ name: 'tenant', limit: 1, keyPath: 't' }] }]);
    const me = await fakeCoordinator(db.pool, ['resc']);
    await enqueue(db.pool, 'resc', Array.from({ length: 3 }, (_, i) => ({ payload: { t: 'a', i } })));
    const [one] = await claimExecutions(db.pool, me, 'resc', 50, 60_000);
    expect(await claimExecutions(db.pool, me, 'resc', 50, 60_000)).toEqual([]);
    expect(await waiting('resc')).toEqual({ 'tenant=a': 2 });
    // release (shutdown): back to queued, and the oldest waiting row comes back too
    await finishExecutions(db.pool, 'resc', [{ id: one!.id, leaseToken: one!.leaseToken, outcome: 'release' }]);
    expect(await waiting('resc')).toEqual({ 'tenant=a': 1 });
    const again = await claimExecutions(db.pool, me, 'resc', 50, 60_000);
    expect(again.map((e) => (e.payload as { i: number }).i)).toEqual([0]);
  });
});
