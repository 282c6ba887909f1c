// "Why is this waiting?" (sluice_why_waiting, server/db/sql/functions/sluice_why_waiting.sql) against
// what the claim then does. Two halves:
//  * SQL-level, one claim at a time (a registered member owning the partitions calls
//    sluice_claim itself): for each constraint, the reply names it, the claim takes
//    nothing of the row, and once the constraint is released the reply says `claimable`
//    and the very next claim takes the row;
//  * real coordinator processes: the reply while a row is held (a full key, a full task,
//    a stream head in backoff, a pause, no live owner, a delay), and the row runs once
//    that holder is released.
import { describe, it, expect, beforeAll } from 'vitest';
import { testDatabase, type TestDatabase } from './db';
import { applyTasks, fakeCoordinator, lowerClaimFloors, sleep } from '../support/engine-fixtures';
import { coordinatorTestContext, waitFor } from '../support/coordinator-harness';
import { enqueue } from '../../server/services/enqueue';
import { claimExecutions, type ClaimedExecution } from '../../server/db/claim-executions';
import { finishExecutions } from '../../server/db/finish-executions';
import { readWhyWaiting } from '../../server/db/why-waiting';
import { whyWaitingFromRow, type WhyWaiting } from '../../server/core/why-waiting';
import { setTaskPaused } from '../../server/services/task-config';
import { SYSTEM_ACTOR } from '../../server/db/audit';
import { executionDetail } from '../../server/presenters/execution';

async function why(pool: TestDatabase['pool'], id: number): Promise<WhyWaiting> {
  const w = await readWhyWaiting(pool, id, 10_000);
  if (!w) throw new Error(`no execution ${id}`);
  return whyWaitingFromRow(w);
}
const ok = (rows: ClaimedExecution[]) => rows.map((e) => ({ id: e.id, leaseToken: e.leaseToken, outcome: 'succeeded' as const }));

describe('why-waiting agrees with the claim (SQL level)', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await testDatabase();
  });

  it('group key full (with override) → nothing claimed; released → claimable → claimed next', async () => {
    await applyTasks(db.pool, [
      { name: 'g', partitions: 1, concurrency: 10, groups: [{ name: 'tenant', limit: 2, keyPath: 't', overrides: { vip: 1 } }] },
    ]);
    const me = await fakeCoordinator(db.pool, ['g']);
    const a = (await enqueue(db.pool, 'g', [{ payload: { t: 'acme' } }, { payload: { t: 'acme' } }, { payload: { t: 'acme' } }, { payload: { t: 'vip' } }, { payload: { t: 'vip' } }])).executions.map((e) => e.id!);
    const first = await claimExecutions(db.pool, me, 'g', 10, 60_000);
    expect(first.map((e) => e.id).sort()).toEqual([a[0], a[1], a[3]].sort());
    const w = await why(db.pool, a[2]!);
    expect(w.reason).toBe('group_full');
    expect(w.holds[0]).toMatchObject({ key: 'tenant=acme', inFlight: 2, limit: 2, override: false });
    expect(w.text).toBe('group key tenant=acme is full: 2/2');
    expect((await why(db.pool, a[4]!)).holds[0]).toMatchObject({ key: 'tenant=vip', inFlight: 1, limit: 1, override: true });
    expect((await why(db.pool, a[4]!)).text).toBe('group key tenant=vip is full: 1/1 (override)');
    expect(await claimExecutions(db.pool, me, 'g', 10, 60_000)).toEqual([]);
    // release one acme slot: the row is reported claimable and the next claim takes it
    await finishExecutions(db.pool, 'g', ok(first.filter((e) => e.id === a[0])));
    const after = await why(db.pool, a[2]!);
    expect(after.reason).toBe('claimable');
    expect(after.text).toMatch(/^claimable: next cycle/);
    expect((await claimExecutions(db.pool, me, 'g', 10, 60_000)).map((e) => e.id)).toEqual([a[2]]);
    expect((await why(db.pool, a[2]!))).toMatchObject({ reason: 'not_waiting', state: 'running' });
  });

  it('task limit full → nothing claimed; a finish → claimable → claimed', async () => {
    await applyTasks(db.pool, [{ name: 'tf', partitions: 2, concurrency: 2 }]);
    const me = await fakeCoordinator(db.pool, ['tf']);
    const ids = (await enqueue(db.pool, 'tf', [{ payload: {} }, { payload: {} }, { payload: {} }])).executions.map((e) => e.id!);
    const got = await claimExecutions(db.pool, me, 'tf', 10, 60_000);
    expect(got).toHaveLength(2);
    const left = ids.find((i) => !got.some((g) => g.id === i))!;
    const w = await why(db.pool, left);
    expect(w).toMatchObject({ reason: 'task_full', holds: [{ inFlight: 2, concurrency: 2 }] });
    expect(w.text).toBe('task limit full: 2/2');
    expect(await claimExecutions(db.pool, me, 'tf', 10, 60_000)).toEqual([]);
    await finishExecutions(db.pool, 'tf', ok(got.slice(0, 1)));
    expect((await why(db.pool, left)).reason).toBe('claimable');
    expect((await claimExecutions(db.pool, me, 'tf', 10, 60_000)).map((e) => e.id)).toEqual([left]);
  });

  it('stream head in backoff → the blocked row names it; head done → promoted, claimable, claimed', async () => {
    await applyTasks(db.pool, [{ name: 'st', partitions: 1, concurrency: 5, stream: {}, retry: { maxAttempts: 3, backoff: 'fixed', baseDelayMs: 1000, maxDelayMs: 1000, jitter: 0 } }]);
    const me = await fakeCoordinator(db.pool, ['st']);
    const [head, second] = (await enqueue(db.pool, 'st', [{ payload: {}, streamKey: 'c1' }, { payload: {}, streamKey: 'c1' }])).executions.map((e) => e.id!);
    const [h] = await claimExecutions(db.pool, me, 'st', 10, 60_000);
    expect(h!.id).toBe(head);
    const retryAt = new Date(Date.now() + 60_000);
    await finishExecutions(db.pool, 'st', [{ id: h!.id, leaseToken: h!.leaseToken, outcome: 'retry', runAt: retryAt, error: 'boom' }]);
    const w = await why(db.pool, second!);
    expect(w.reason).toBe('stream_head');
    expect(w.holds[0]).toMatchObject({ stream: 'c1', headId: head, headState: 'queued', headAttempts: 1 });
    expect(w.text).toMatch(new RegExp(`^stream c1: head is execution ${head} \\(attempt 2 retries at `));
    const hw = await why(db.pool, head!);
    expect(hw).toMatchObject({ reason: 'scheduled', holds: [{ kind: 'retry_backoff', attempts: 1 }] });
    expect(await claimExecutions(db.pool, me, 'st', 10, 60_000)).toEqual([]);
    // the head's retry comes due: it is claimable (the blocked row still is not), claimed, succeeds
    await db.pool.query(`UPDATE executions SET run_at = now() WHERE id = $1`, [head]);
    await lowerClaimFloors(db.pool, 'st');
    expect((await why(db.pool, head!)).reason).toBe('claimable');
    const [h2] = await claimExecutions(db.pool, me, 'st', 10, 60_000);
    expect(h2!.id).toBe(head);
    expect((await why(db.pool, second!)).holds[0]).toMatchObject({ reason: 'stream_head', headState: 'running', headAttempts: 2 });
    await finishExecutions(db.pool, 'st', ok([h2!]));
    expect((await why(db.pool, second!)).reason).toBe('claimable');
    expect((await claimExecutions(db.pool, me, 'st', 10, 60_000)).map((e) => e.id)).toEqual([second]);
  });

  it('scheduled (delay), paused, no live owner, spilled — each reported, then claimable once released', async () => {
    await applyTasks(db.pool, [
      { name: 'd', partitions: 1, concurrency: 5 },
      { name: 'sp', partitions: 1, concurrency: 5, backpressure: { maxDepth: 2, policy: 'spill' } },
    ]);
    const [delayed] = (await enqueue(db.pool, 'd', [{ payload: {}, delayMs: 60_000 }])).executions.map((e) => e.id!);
    // no coordinator owns d yet
    const w0 = await why(db.pool, delayed!);
    expect(w0.holds.map((h) => h.reason)).toEqual(['scheduled', 'no_owner']);
    expect(w0.text).toMatch(/^scheduled until .* \(delay\)$/);
    const me = await fakeCoordinator(db.pool, ['d', 'sp']);
    expect((await why(db.pool, delayed!)).holds.map((h) => h.reason)).toEqual(['scheduled']);
    expect(await claimExecutions(db.pool, me, 'd', 10, 60_000)).toEqual([]);
    await db.pool.query(`UPDATE executions SET run_at = now() WHERE id = $1`, [delayed]);
    await lowerClaimFloors(db.pool, 'd');
    await setTaskPaused(db.pool, SYSTEM_ACTOR, { task: 'd', paused: true });
    expect(await why(db.pool, delayed!)).toMatchObject({ reason: 'task_paused', text: 'task d is paused' });
    expect(await claimExecutions(db.pool, me, 'd', 10, 60_000)).toEqual([]);
    await setTaskPaused(db.pool, SYSTEM_ACTOR, { task: 'd', paused: false });
    // the owner goes silent: no live owner, whatever the row's own state
    await db.pool.query(`UPDATE coordinators SET last_heartbeat_at = now() - interval '1 hour' WHERE id = $1`, [me]);
    const nw = await why(db.pool, delayed!);
    expect(nw.reason).toBe('no_owner');
    expect(nw.text).toMatch(/^partition 0 has no live owner/);
    await db.pool.query(`UPDATE coordinators SET last_heartbeat_at = now() WHERE id = $1`, [me]);
    expect((await why(db.pool, delayed!)).reason).toBe('claimable');
    expect((await claimExecutions(db.pool, me, 'd', 10, 60_000)).map((e) => e.id)).toEqual([delayed]);

    const sp = (await enqueue(db.pool, 'sp', Array.from({ length: 4 }, () => ({ payload: {} })))).executions;
    const spilled = sp.filter((e) => e.state === 'spilled').map((e) => e.id!);
    expect(spilled.length).toBeGreaterThan(0);
    const s = await why(db.pool, spilled[0]!);
    expect(s).toMatchObject({ reason: 'spilled', holds: [{ partition: 0, depth: 2, maxDepth: 2, spilledAhead: 0 }] });
    expect(s.text).toMatch(/^spilled: partition 0 holds 2 of maxDepth 2/);
    if (spilled[1]) expect((await why(db.pool, spilled[1])).holds[0]).toMatchObject({ spilledAhead: 1 });
  });

  it('the detail carries the same reply as the SQL function', async () => {
    const id = Number((await db.pool.query(`SELECT id FROM overflow ORDER BY id LIMIT 1`)).rows[0].id);
    const d = await executionDetail(db.pool, { id }, { includePayload: true });
    expect(d.displayState).toBe('spilled');
    expect(d.whyWaiting).toEqual(await why(db.pool, id));
  });
});

describe('why-waiting with real coordinator processes', () => {
  const ctx = coordinatorTestContext();
  const state = async (id: number) => (await ctx.db.pool.query(`SELECT state FROM executions WHERE id = $1`, [id])).rows[0]?.state as string | undefined;
  const ran = async (id: number) => (await ctx.db.pool.query(`SELECT 1 FROM test_runs WHERE execution_id = $1`, [id])).rowCount! > 0;

  it('a full key, a full task, a stream head in backoff, a pause, no owner: each row runs once its holder is released', async () => {
    const { db, h } = ctx;
    await applyTasks(db.pool, [
      { name: 'rec', partitions: 2, concurrency: 3, groups: [{ name: 'tenant', limit: 2, keyPath: 'tenant' }], stream: {}, retry: { maxAttempts: 3, backoff: 'fixed', baseDelayMs: 2500, maxDelayMs: 2500, jitter: 0 } },
      { name: 'rec-b', partitions: 1, concurrency: 2 },
    ]);
    // rec-b first, with no coordinator serving it: no owner
    const [orphan] = (await enqueue(db.pool, 'rec-b', [{ payload: {} }])).executions.map((e) => e.id!);
    await h.start({ name: 'c1', handlers: 'test/support/handlers/record.ts', tasks: ['rec'], slots: 10 });
    expect((await why(db.pool, orphan!)).holds[0]).toMatchObject({ reason: 'no_owner', partition: 0, owner: null });

    // a full key: two long runs of acme, a third acme waits on the key
    const [a1, a2] = (await enqueue(db.pool, 'rec', [{ payload: { tenant: 'acme', sleepMs: 2500 } }, { payload: { tenant: 'acme', sleepMs: 2500 } }])).executions.map((e) => e.id!);
    await waitFor('two acme runs', async () => (await state(a1!)) === 'running' && (await state(a2!)) === 'running');
    const [a3] = (await enqueue(db.pool, 'rec', [{ payload: { tenant: 'acme' } }])).executions.map((e) => e.id!);
    await sleep(300); // a few claim cycles pass it by
    expect(await state(a3!)).toBe('queued');
    const wk = await why(db.pool, a3!);
    expect(wk.reason).toBe('group_full');
    expect(wk.text).toBe('group key tenant=acme is full: 2/2');
    // and with a third tenant running, the task is full too: the row's reply lists both
    const [b1] = (await enqueue(db.pool, 'rec', [{ payload: { tenant: 'beta', sleepMs: 2500 } }])).executions.map((e) => e.id!);
    await waitFor('beta runs', async () => (await state(b1!)) === 'running');
    const [c1] = (await enqueue(db.pool, 'rec', [{ payload: { tenant: 'gamma' } }])).executions.map((e) => e.id!);
    await sleep(300);
    expect(await state(c1!)).toBe('queued');
    expect(await why(db.pool, c1!)).toMatchObject({ reason: 'task_full', holds: [{ inFlight: 3, concurrency: 3 }] });
    expect((await why(db.pool, a3!)).holds.map((x) => x.reason)).toEqual(['group_full', 'task_full']);
    // released: the acme runs finish; the held rows run
    await waitFor('a3 and c1 run after the slots free', async () => (await ran(a3!)) && (await ran(c1!)), 20_000);
    expect(await ran(a1!)).toBe(true);

    // a stream head that fails once (fixed 2.5 s backoff): the next row of its stream names it
    const [s1, s2] = (await enqueue(db.pool, 'rec', [{ payload: { failTimes: 1, seq: 1 }, streamKey: 'conv' }, { payload: { seq: 2 }, streamKey: 'conv' }])).executions.map((e) => e.id!);
    const ws = await waitFor('the head in backoff', async () => {
      const w = await why(db.pool, s2!);
      const hold = w.holds[0];
      return hold?.reason === 'stream_head' && hold.headRetryAt ? w : null;
    });
    expect(ws.holds[0]).toMatchObject({ headId: s1, headState: 'queued', headAttempts: 1 });
    expect(ws.text).toMatch(new RegExp(`^stream conv: head is execution ${s1} \\(attempt 2 retries at `));
    expect((await why(db.pool, s1!)).holds[0]).toMatchObject({ reason: 'scheduled', kind: 'retry_backoff' });
    expect(await ran(s2!)).toBe(false);
    await waitFor('the stream runs on after its head succeeds', async () => (await ran(s1!)) && (await ran(s2!)), 20_000);

    // a pause: reported; resumed, the row runs
    await setTaskPaused(db.pool, SYSTEM_ACTOR, { task: 'rec', paused: true });
    await sleep(700); // the coordinator's config poll
    const [p1] = (await enqueue(db.pool, 'rec', [{ payload: { tenant: 'delta' } }])).executions.map((e) => e.id!);
    await sleep(300);
    expect(await state(p1!)).toBe('queued');
    expect(await why(db.pool, p1!)).toMatchObject({ reason: 'task_paused' });
    await setTaskPaused(db.pool, SYSTEM_ACTOR, { task: 'rec', paused: false });
    await waitFor('the paused row runs after resume', () => ran(p1!), 20_000);

    // no owner: a coordinator for rec-b takes its partition; the orphan runs
    await h.start({ name: 'c2', handlers: 'test/support/handlers/record.ts', tasks: ['rec-b'], slots: 4 });
    await waitFor('the orphan runs once its partition has an owner', () => ran(orphan!), 20_000);
  }, 120_000);
});
