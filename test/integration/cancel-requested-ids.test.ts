// The coordinator's cancel poll (server/db/cancel-requested-ids.ts) reads its own running
// ids by primary key, so its cost does not grow with the rows that ran while a snapshot was
// held (executions_running_idx keeps an entry for each of them then).
import { describe, it, expect, beforeAll } from 'vitest';
import pg from 'pg';
import { testDatabase, type TestDatabase } from './db';
import { applyTasks, fakeCoordinator } from '../support/engine-fixtures';
import { enqueue } from '../../server/services/enqueue';
import { claimExecutions } from '../../server/db/claim-executions';
import { finishExecutions } from '../../server/db/finish-executions';
import { CANCEL_REQUESTED_SQL, cancelRequestedIds } from '../../server/db/cancel-requested-ids';

let db: TestDatabase;
beforeAll(async () => {
  db = await testDatabase();
});

describe('cancel poll', () => {
  it('finds exactly the running ids with a cancel request, by primary key: a few buffers per id under a held snapshot, whatever ran since', async () => {
    await applyTasks(db.pool, [{ name: 'cx', partitions: 1, concurrency: 5000, backpressure: { maxDepth: 100_000 } }]);
    const me = await fakeCoordinator(db.pool, ['cx']);
    await enqueue(db.pool, 'cx', Array.from({ length: 3000 }, (_, i) => ({ payload: { i } })));
    const holder = new pg.Client({ connectionString: db.url });
    await holder.connect();
    try {
      await holder.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
      await holder.query('SELECT count(*) FROM executions');
      // 3,000 run while the snapshot is held, 2,990 of them finish
      const running = await claimExecutions(db.pool, me, 'cx', 3000, 60_000);
      expect(running).toHaveLength(3000);
      const done = running.slice(10);
      const mine = running.slice(0, 10);
      for (let i = 0; i < done.length; i += 500) {
        await finishExecutions(db.pool, 'cx', done.slice(i, i + 500).map((e) => ({ id: e.id, leaseToken: e.leaseToken, outcome: 'succeeded' as const })));
      }
      await db.pool.query(`UPDATE executions SET cancel_requested_at = now() WHERE id = ANY ($1::bigint[])`, [[mine[2]!.id, mine[7]!.id, done[0]!.id]]);
      // the truth: only running rows with their lease token count (done[0] finished; a wrong token never matches)
      const asked = await cancelRequestedIds(db.pool, [...mine, { id: done[0]!.id, leaseToken: done[0]!.leaseToken }, { id: mine[3]!.id, leaseToken: mine[2]!.leaseToken }]);
      expect(asked.sort((a, b) => a - b)).toEqual([mine[2]!.id, mine[7]!.id].sort((a, b) => a - b));
      const plan = await db.pool.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${CANCEL_REQUESTED_SQL}`, [mine.map((e) => e.id), mine.map((e) => e.leaseToken)]);
      const top = plan.rows[0]['QUERY PLAN'][0].Plan;
      const buffers = top['Shared Hit Blocks'] + top['Shared Read Blocks'];
      // by primary key: ~3–4 per id; the running index's 3,000 entries read ~100 times that
      expect(buffers, JSON.stringify(top)).toBeLessThan(100);
      expect(JSON.stringify(top)).toContain('executions_pkey');
    } finally {
      await holder.query('ROLLBACK');
      await holder.end();
    }
  });
});
