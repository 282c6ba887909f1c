// Priorities (issue #19) through the real claim (sluice_claim / sluice_claim_rows) and
// finish: the claim takes a task's claimable rows highest priority first within every
// limit, equal priorities FIFO, and a waiting row ages (one level per agingMs), so a low
// priority is never starved. The rule: server/core/priority.ts. Time is not waited for:
// "an execution has waited w" is made by moving its run_at back by w (claim_at is
// generated from run_at, as a real wait would leave it).
import { describe, it, expect, beforeAll } from 'vitest';
import { testDatabase, type TestDatabase } from './db';
import { applyTasks, fakeCoordinator, lowerClaimFloors } from '../support/engine-fixtures';
import { enqueue } from '../../server/services/enqueue';
import { claimExecutions, type ClaimedExecution } from '../../server/db/claim-executions';
import { finishExecutions } from '../../server/db/finish-executions';
import { readWhyWaiting } from '../../server/db/why-waiting';
import { whyWaitingFromRow } from '../../server/core/why-waiting';

let db: TestDatabase;
beforeAll(async () => {
  db = await testDatabase();
});

const DAY = 86_400_000;
const tags = (got: ClaimedExecution[]) => got.map((e) => (e.payload as { tag: string }).tag);
const finish = (task: string, got: ClaimedExecution[]) =>
  finishExecutions(db.pool, task, got.map((e) => ({ id: e.id, leaseToken: e.leaseToken, outcome: 'succeeded' as const })));

describe('priorities', () => {
  it('claims highest priority first, FIFO within a priority, the task default for executions without one; why-waiting counts who is ahead', async () => {
    await applyTasks(db.pool, [{ name: 'prio-plain', partitions: 1, concurrency: 100, priority: { default: 2, agingMs: DAY } }]);
    const coord = await fakeCoordinator(db.pool, ['prio-plain']);
    const low = await enqueue(db.pool, 'prio-plain', Array.from({ length: 4 }, (_, i) => ({ payload: { tag: `p0-${i}` }, priority: 0 })));
    await enqueue(db.pool, 'prio-plain', Array.from({ length: 4 }, (_, i) => ({ payload: { tag: `p9-${i}` }, priority: 9 })));
    await enqueue(db.pool, 'prio-plain', Array.from({ length: 4 }, (_, i) => ({ payload: { tag: `def-${i}` } })));
    const stored = await db.pool.query<{ priority: number; n: number }>(
      `SELECT priority, count(*)::int AS n FROM executions WHERE task = 'prio-plain' GROUP BY 1 ORDER BY 1`,
    );
    expect(stored.rows).toEqual([{ priority: 0, n: 4 }, { priority: 2, n: 4 }, { priority: 9, n: 4 }]);

    const why = whyWaitingFromRow((await readWhyWaiting(db.pool, low.executions[0]!.id!, 10_000))!);
    expect(why).toMatchObject({ reason: 'claimable', ahead: 8, aheadHigherPriority: 8, priority: 0 });
    expect(why.text).toContain('8 of higher priority than its 0');

    const order: string[] = [];
    for (let round = 0; round < 3; round++) {
      const got = await claimExecutions(db.pool, coord, 'prio-plain', 4, 60_000);
      order.push(...tags(got));
      await finish('prio-plain', got);
    }
    expect(order).toEqual(['p9-0', 'p9-1', 'p9-2', 'p9-3', 'def-0', 'def-1', 'def-2', 'def-3', 'p0-0', 'p0-1', 'p0-2', 'p0-3']);
  });

  it('orders within group limits: each key runs its own highest priorities, and rows set aside on a full key come back highest first', async () => {
    await applyTasks(db.pool, [
      { name: 'prio-groups', partitions: 2, concurrency: 4, priority: { agingMs: DAY }, groups: [{ name: 'tenant', limit: 1, keyPath: 'tenant' }] },
    ]);
    const coord = await fakeCoordinator(db.pool, ['prio-groups']);
    // acme: 6 low then 2 high (enqueued after); globex: 2 low. Limit 1 per tenant.
    await enqueue(db.pool, 'prio-groups', Array.from({ length: 6 }, (_, i) => ({ payload: { tenant: 'acme', tag: `acme-low-${i}` } })));
    await enqueue(db.pool, 'prio-groups', Array.from({ length: 2 }, (_, i) => ({ payload: { tenant: 'globex', tag: `globex-low-${i}` } })));
    await enqueue(db.pool, 'prio-groups', Array.from({ length: 2 }, (_, i) => ({ payload: { tenant: 'acme', tag: `acme-high-${i}` }, priority: 7 })));

    const first = await claimExecutions(db.pool, coord, 'prio-groups', 4, 60_000);
    // the task has 4 slots but each tenant 1: acme's is its first high row, globex's its oldest
    expect(tags(first).sort()).toEqual(['acme-high-0', 'globex-low-0']);
    // a claim while both keys are full finds nothing and sets their rows aside (waiting_on)
    expect(await claimExecutions(db.pool, coord, 'prio-groups', 4, 60_000)).toEqual([]);
    const aside = await db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM executions WHERE task = 'prio-groups' AND waiting_on = 'tenant=acme'`);
    expect(aside.rows[0]!.n).toBeGreaterThan(0);

    const order: string[] = [...tags(first).filter((t) => t.startsWith('acme'))];
    let running = first;
    for (let round = 0; round < 10 && running.length > 0; round++) {
      await finish('prio-groups', running); // releases acme's next waiting row: claim order, so the high one
      running = await claimExecutions(db.pool, coord, 'prio-groups', 4, 60_000);
      expect(running.filter((e) => (e.payload as { tenant: string }).tenant === 'acme').length).toBeLessThanOrEqual(1);
      order.push(...tags(running).filter((t) => t.startsWith('acme')));
    }
    expect(order).toEqual(['acme-high-0', 'acme-high-1', 'acme-low-0', 'acme-low-1', 'acme-low-2', 'acme-low-3', 'acme-low-4', 'acme-low-5']);
  });

  it('aging lifts a low priority that a steady stream of higher-priority work would starve, after (Δpriority × agingMs)', async () => {
    // Two tasks, same arrivals: priority 3 rows keep coming, two per round, and the claim
    // takes two per round (a task always busy with higher-priority work). One "second"
    // passes per round. With agingMs 1 s the waiting priority-0 row ranks ahead of fresh
    // priority-3 rows once it has waited 3 s; with agingMs one day it never does here.
    const rounds = async (task: string) => {
      const coord = await fakeCoordinator(db.pool, [task]);
      const low = (await enqueue(db.pool, task, [{ payload: { tag: 'low' }, priority: 0 }])).executions[0]!.id!;
      for (let round = 1; round <= 10; round++) {
        await db.pool.query(`UPDATE executions SET run_at = run_at - interval '1 second' WHERE task = $1 AND state = 'queued'`, [task]);
        await lowerClaimFloors(db.pool, task);
        await enqueue(db.pool, task, [0, 1].map((i) => ({ payload: { tag: `high-${round}-${i}` }, priority: 3 })));
        const got = await claimExecutions(db.pool, coord, task, 2, 60_000);
        await finish(task, got);
        if (got.some((e) => e.id === low)) return round;
      }
      return null;
    };
    await applyTasks(db.pool, [
      { name: 'prio-aging', partitions: 1, concurrency: 10, priority: { agingMs: 1000 } },
      { name: 'prio-no-aging', partitions: 1, concurrency: 10, priority: { agingMs: DAY } },
    ]);
    const lifted = await rounds('prio-aging');
    // round 3: waited 3 s (plus the test's own milliseconds) = 3 levels, ahead of the fresh rows
    expect(lifted).not.toBeNull();
    expect(lifted!).toBeGreaterThanOrEqual(3);
    expect(lifted!).toBeLessThanOrEqual(4);
    expect(await rounds('prio-no-aging')).toBeNull();
  });

  it('refuses a priority out of range or not whole, naming the field, writing nothing', async () => {
    await applyTasks(db.pool, [{ name: 'prio-bad', partitions: 1 }]);
    for (const priority of [-1, 1001, 1.5, Number.NaN]) {
      await expect(enqueue(db.pool, 'prio-bad', [{ payload: {}, priority }])).rejects.toMatchObject({
        fieldErrors: [{ path: 'priority', message: 'must be a whole number from 0 to 1000' }],
      });
    }
    const n = await db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM executions WHERE task = 'prio-bad'`);
    expect(n.rows[0]!.n).toBe(0);
  });
});
