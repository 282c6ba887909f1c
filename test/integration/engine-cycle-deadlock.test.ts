// sluice_cycle against a concurrent enqueue: the two interleavings that deadlocked
// (40P01, bench:soak on 2026-11-24) replayed step by step on two connections (since
// 2026-12-02 the cycle takes no slot row; the second case checks that, and the fold of its
// logged moves against the producer instead). The
// enqueue's own lock statements are used (lockPartitions, addQueuedGroupKeys: partition_stats
// in order, then a fair group's group_slots rows in order; other keys' +queued is a
// slot_deltas row, the third case), one partition or key at a time so the test
// decides when each lock is taken. Each case waits until the cycle really waits for a lock
// (pg_stat_activity) before the enqueue takes its next one, so the order is not left to timing.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import type pg from 'pg';
import { testDatabase, type TestDatabase } from './db';
import { applyTasks, fakeCoordinator, sleep } from '../support/engine-fixtures';
import { enqueue } from '../../server/services/enqueue';
import { claimExecutions } from '../../server/db/claim-executions';
import { finishAndClaimExecutions } from '../../server/db/finish-and-claim-executions';
import { addQueuedGroupKeys, lockPartitions } from '../../server/db/enqueue-executions';
import { hashPartition } from '../../server/core/routing';
import { syncOwnership } from '../../server/db/partition-ownership';
import { foldSlotDeltas } from '../../server/db/fold-slot-deltas';

let db: TestDatabase;
let producer: pg.PoolClient;
let cycler: pg.PoolClient;
beforeAll(async () => {
  db = await testDatabase();
  producer = await db.pool.connect();
  cycler = await db.pool.connect();
});
afterAll(async () => {
  producer.release();
  cycler.release();
});

/** A routing key that hashes to `partition` of `partitions`. */
function keyFor(partition: number, partitions: number, prefix: string): string {
  for (let i = 0; ; i++) if (hashPartition(`${prefix}${i}`, partitions) === partition) return `${prefix}${i}`;
}

/** Resolves once the backend `pid` waits for a heavyweight lock (a row or transaction lock). */
async function waitingForLock(pid: number): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const r = await db.pool.query(`SELECT wait_event_type FROM pg_stat_activity WHERE pid = $1`, [pid]);
    if (r.rows[0]?.wait_event_type === 'Lock') return;
    await sleep(10);
  }
  throw new Error(`backend ${pid} never waited for a lock`);
}

const pidOf = async (c: pg.PoolClient) => Number((await c.query('SELECT pg_backend_pid() AS pid')).rows[0].pid);

describe('sluice_cycle and a concurrent enqueue', () => {
  it('partition counters: the cycle finishing in partition 1 and claiming from partition 0 does not deadlock with an enqueue locking 0 then 1', async () => {
    await applyTasks(db.pool, [{ name: 'dl_ps', partitions: 2, concurrency: 10, routing: { strategy: 'hash', keyPath: 'k' } }]);
    const me = await fakeCoordinator(db.pool, ['dl_ps'], { dl_ps: [1] });
    const k0 = keyFor(0, 2, 'p');
    const k1 = keyFor(1, 2, 'p');
    await enqueue(db.pool, 'dl_ps', [{ payload: { k: k1 } }]);
    const [running] = await claimExecutions(db.pool, me, 'dl_ps', 1, 60_000);
    expect(running!.partition).toBe(1);
    await enqueue(db.pool, 'dl_ps', [{ payload: { k: k0 } }]);
    await syncOwnership(db.pool, me, [{ task: 'dl_ps', partition: 0 }, { task: 'dl_ps', partition: 1 }], 60_000);

    // The producer holds partition 0's counter row, as an enqueue into 0 and 1 does first.
    await producer.query('BEGIN');
    await lockPartitions(producer, 'dl_ps', [0]);
    // The cycle finishes the row of partition 1 and wants to claim the queued row of 0.
    const cyclePid = await pidOf(cycler);
    const cycle = finishAndClaimExecutions(cycler, me, 'dl_ps', [{ id: running!.id, leaseToken: running!.leaseToken, outcome: 'succeeded' }], 1, 60_000);
    await waitingForLock(cyclePid);
    // The producer goes on to partition 1: it must not wait for the cycle.
    await lockPartitions(producer, 'dl_ps', [1]);
    await producer.query('COMMIT');
    const r = await cycle;
    expect(r.applied.get(running!.id)).toBe('succeeded');
    expect(r.claimed.map((e) => e.partition)).toEqual([0]);
    const ps = await db.pool.query(`SELECT partition, depth, in_flight, po.processed_total::int AS done FROM partition_stats ps JOIN partition_outcomes po USING (task, partition) WHERE task = 'dl_ps' ORDER BY partition`);
    expect(ps.rows).toEqual([
      { partition: 0, depth: 0, in_flight: 1, done: 0 },
      { partition: 1, depth: 0, in_flight: 0, done: 1 },
    ]);
  });

  // Only a fair share group's keys are upserted by the enqueue (the fair pass reads
  // group_slots.queued); every other key's +queued is a slot_deltas row (next test).
  it('group slots: the cycle takes no slot row, so a producer holding some (a fair group\'s) never holds it up; the fold of its moves waits for the producer, and neither deadlocks', async () => {
    await applyTasks(db.pool, [{ name: 'dl_gs', partitions: 2, concurrency: 10, order: 'fair', routing: { strategy: 'hash', keyPath: 'k' }, groups: [{ name: 'tenant', limit: 5, keyPath: 't' }] }]);
    // Coordinator 1 owns partition 0; partition 1 is another coordinator's, where the producer enqueues.
    const c1 = await fakeCoordinator(db.pool, ['dl_gs'], { dl_gs: [0] });
    await fakeCoordinator(db.pool, ['dl_gs'], { dl_gs: [1] });
    const k0 = keyFor(0, 2, 'g');
    await enqueue(db.pool, 'dl_gs', [{ payload: { k: k0, t: 'b' } }]);
    const [running] = await claimExecutions(db.pool, c1, 'dl_gs', 1, 60_000);
    await enqueue(db.pool, 'dl_gs', [{ payload: { k: k0, t: 'a' } }]);
    const queuedA = Number((await db.pool.query(`SELECT id FROM executions WHERE task = 'dl_gs' AND state = 'queued'`)).rows[0].id);
    await foldSlotDeltas(db.pool, 'dl_gs');

    // The producer enqueues into partition 1 with keys a then b (sorted): it holds a.
    await producer.query('BEGIN');
    await lockPartitions(producer, 'dl_gs', [1]);
    await addQueuedGroupKeys(producer, 'dl_gs', [['tenant', 'a']]);
    // The cycle finishes tenant=b and claims the tenant=a row without waiting for row a:
    // it logs its slot moves (slot_deltas) instead of updating slot rows.
    const r = await Promise.race([
      finishAndClaimExecutions(cycler, c1, 'dl_gs', [{ id: running!.id, leaseToken: running!.leaseToken, outcome: 'succeeded' }], 1, 60_000),
      sleep(5_000).then(() => null),
    ]);
    expect(r, 'the cycle waited for the producer').not.toBeNull();
    expect(r!.applied.get(running!.id)).toBe('succeeded');
    expect(r!.claimed.map((e) => e.id)).toEqual([queuedA]);
    // Folding those moves (a, then b) waits for the producer's row a, holding no slot row yet.
    const folderPid = await pidOf(cycler);
    const fold = foldSlotDeltas(cycler, 'dl_gs');
    await waitingForLock(folderPid);
    // The producer goes on to b: it must not wait for the fold (a deadlock would be
    // reported here as 40P01 after deadlock_timeout).
    const more = await Promise.race([
      addQueuedGroupKeys(producer, 'dl_gs', [['tenant', 'b']]).then(() => 'done' as const),
      sleep(5_000).then(() => 'the producer waited for the fold' as const),
    ]);
    expect(more).toBe('done');
    await producer.query('ROLLBACK');
    expect(await fold).toBe(2); // the finish's row (b −1) and the claim's (a +1, −1 queued)
    const gs = await db.pool.query(`SELECT group_key, in_flight, queued FROM group_slots WHERE task = 'dl_gs' ORDER BY group_key`);
    expect(gs.rows).toEqual([
      { group_key: 'a', in_flight: 1, queued: 0 },
      { group_key: 'b', in_flight: 0, queued: 0 },
    ]);
  });

  it('a producer of a fifo task takes no slot row: its +queued is one slot_deltas row, invisible until it commits, so a fold never waits for it', async () => {
    await applyTasks(db.pool, [{ name: 'dl_gs2', partitions: 1, concurrency: 10, groups: [{ name: 'tenant', limit: 5, keyPath: 't' }, { name: 'region', limit: 5, keyPath: 'r' }] }]);
    await enqueue(db.pool, 'dl_gs2', [{ payload: { t: 'a', r: 'eu' } }, { payload: { t: 'a', r: 'us' } }]);
    const deltas = await db.pool.query(`SELECT keys, d_in_flight, d_queued FROM slot_deltas WHERE task = 'dl_gs2'`);
    expect(deltas.rows).toHaveLength(1);
    expect({ ...deltas.rows[0], keys: [...deltas.rows[0].keys].sort() }).toEqual({ keys: ['region=eu', 'region=us', 'tenant=a', 'tenant=a'], d_in_flight: 0, d_queued: 1 });
    expect((await db.pool.query(`SELECT 1 FROM group_slots WHERE task = 'dl_gs2'`)).rows).toHaveLength(0);
    // the console's view counts them at once
    const view = await db.pool.query(`SELECT group_name, group_key, in_flight, queued FROM group_slot_counts WHERE task = 'dl_gs2' ORDER BY 1, 2`);
    expect(view.rows).toEqual([
      { group_name: 'region', group_key: 'eu', in_flight: 0, queued: 1 },
      { group_name: 'region', group_key: 'us', in_flight: 0, queued: 1 },
      { group_name: 'tenant', group_key: 'a', in_flight: 0, queued: 2 },
    ]);
    await foldSlotDeltas(db.pool, 'dl_gs2');
    // A producer mid-transaction (partition locked, +queued written) holds no slot row: a
    // fold, even the reconciler's waiting one, completes without it.
    await producer.query('BEGIN');
    await lockPartitions(producer, 'dl_gs2', [0]);
    await addQueuedGroupKeys(producer, 'dl_gs2', [['tenant', 'a'], ['region', 'eu']]);
    const waited = await Promise.race([
      db.pool.query(`SELECT sluice_fold_slots('dl_gs2', true) AS n`).then((r) => Number(r.rows[0].n)),
      sleep(5_000).then(() => 'the fold waited for the producer' as const),
    ]);
    expect(waited).toBe(0); // the producer's row is not committed: nothing to fold yet
    await producer.query('COMMIT');
    await foldSlotDeltas(db.pool, 'dl_gs2');
    const gs = await db.pool.query(`SELECT group_name, group_key, queued FROM group_slots WHERE task = 'dl_gs2' ORDER BY 1, 2`);
    expect(gs.rows).toEqual([
      { group_name: 'region', group_key: 'eu', queued: 2 },
      { group_name: 'region', group_key: 'us', queued: 1 },
      { group_name: 'tenant', group_key: 'a', queued: 3 },
    ]);
  });
});
