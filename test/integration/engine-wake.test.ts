// An enqueue wakes idle coordinators: NOTIFY sluice_enqueue (task name) in the enqueue's
// transaction when something became claimable now; coordinators serving that task claim
// at once instead of after their poll. Checked at both ends: the notification itself
// (sent on commit, only for claimable rows) and a real coordinator process whose poll is
// 60 s, which must still pick the work up within a second or two.
import { describe, it, expect } from 'vitest';
import pg from 'pg';
import { applyTasks, sleep } from '../support/engine-fixtures';
import { coordinatorTestContext, waitFor } from '../support/coordinator-harness';
import { enqueue } from '../../server/services/enqueue';
import { ENQUEUE_CHANNEL } from '../../server/db/enqueue-executions';

const ctx = coordinatorTestContext();

describe('enqueue wake-up', () => {
  it('notifies on commit with the task name, only for executions claimable now', async () => {
    await applyTasks(ctx.db.pool, [{ name: 'rec-b', partitions: 2, stream: { keyPath: 's' } }]);
    const l = new pg.Client({ connectionString: ctx.db.url });
    await l.connect();
    const got: string[] = [];
    l.on('notification', (n) => {
      if (n.channel === ENQUEUE_CHANNEL) got.push(n.payload ?? '');
    });
    await l.query(`LISTEN ${ENQUEUE_CHANNEL}`);
    try {
      await enqueue(ctx.db.pool, 'rec-b', [{ payload: { i: 1 } }]);
      await waitFor('one notification', async () => got.length === 1, 2000, 10);
      expect(got).toEqual(['rec-b']);
      // delayed: nothing to claim now, no wake-up
      await enqueue(ctx.db.pool, 'rec-b', [{ payload: { i: 2 }, delayMs: 60_000 }]);
      await sleep(300);
      expect(got).toEqual(['rec-b']);
      // a stream's head wakes; the next event, blocked behind it, does not
      await enqueue(ctx.db.pool, 'rec-b', [{ payload: { s: 'x' } }]);
      await waitFor('the head notification', async () => got.length === 2, 2000, 10);
      await enqueue(ctx.db.pool, 'rec-b', [{ payload: { s: 'x' } }]);
      await sleep(300);
      expect(got).toEqual(['rec-b', 'rec-b']);
    } finally {
      await l.end();
    }
  });

  it('a coordinator with a 60 s poll starts new work at once', async () => {
    await applyTasks(ctx.db.pool, [{ name: 'rec', partitions: 4 }]);
    await ctx.h.start({ name: 'idle', slots: 4, tasks: ['rec'], env: { SLUICE_POLL_MS: '60000' } });
    await waitFor('partitions owned', async () =>
      Number((await ctx.db.pool.query(`SELECT count(*) AS n FROM partition_owners WHERE task = 'rec' AND owner IS NOT NULL`)).rows[0].n) === 4);
    await sleep(500); // its claim loop is now asleep on the 60 s poll
    for (let i = 0; i < 3; i++) {
      const r = await enqueue(ctx.db.pool, 'rec', [{ payload: { seq: i } }]);
      const id = r.executions[0]!.id;
      // within 5 s, against a poll of 60 s: only the notification can have woken it
      await waitFor(`execution ${id} ran`, async () =>
        Number((await ctx.db.pool.query(`SELECT count(*) AS n FROM test_runs WHERE execution_id = $1`, [id])).rows[0].n) === 1, 5000, 10);
      await sleep(200);
    }
  }, 30_000);
});
