// A cycle's claim under a snapshot another session holds (issue #18): the claim index keeps
// an entry for every row claimed since the snapshot (none can be removed or marked dead),
// at the head of each partition's range. The cycle reads that head once — its ranking —
// and not a second time for the cheap exit, which only a claim of its own (the claim loop's
// idle poll, before it takes any lock) needs.
import { describe, it, expect, beforeAll } from 'vitest';
import pg from 'pg';
import { testDatabase, type TestDatabase } from './db';
import { applyTasks, claimIndexReads, fakeCoordinator } from '../support/engine-fixtures';
import { enqueue } from '../../server/services/enqueue';
import { claimExecutions, type ClaimedExecution } from '../../server/db/claim-executions';
import { finishAndClaimExecutions } from '../../server/db/finish-and-claim-executions';

let db: TestDatabase;
beforeAll(async () => {
  db = await testDatabase();
});

const succeed = (rows: ClaimedExecution[]) => rows.map((e) => ({ id: e.id, leaseToken: e.leaseToken, outcome: 'succeeded' as const }));

describe('a cycle under a held snapshot', () => {
  it('reads the claim index head once: the entries of the 2,400 rows claimed since the snapshot are walked by the ranking only', async () => {
    await applyTasks(db.pool, [{ name: 'ch', partitions: 1, concurrency: 200, groups: [{ name: 'tenant', limit: 200, keyPath: 't' }], backpressure: { maxDepth: 100_000 } }]);
    const me = await fakeCoordinator(db.pool, ['ch']);
    await enqueue(db.pool, 'ch', Array.from({ length: 3000 }, (_, i) => ({ payload: { t: `t${i % 4}` } })));
    const holder = new pg.Client({ connectionString: db.url });
    await holder.connect();
    const one = new pg.Pool({ connectionString: db.url, max: 1 });
    try {
      await holder.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
      await holder.query('SELECT count(*) FROM executions');
      let running = await claimExecutions(db.pool, me, 'ch', 200, 60_000);
      for (let i = 0; i < 11; i++) {
        const r = await finishAndClaimExecutions(db.pool, me, 'ch', succeed(running), 200, 60_000);
        running = r.claimed;
        expect(running).toHaveLength(200);
      }
      // 2,400 claimed since the snapshot; the next cycle, measured
      const { reads, value } = await claimIndexReads(db.pool, one, (c) => finishAndClaimExecutions(c, me, 'ch', succeed(running), 200, 60_000));
      expect(value.claimed).toHaveLength(200);
      // the ranking: the 2,400 entries, then live rows it reads (measured 2,717); with the
      // cheap exit's walk of the same head before it, 5,118
      expect(reads).toBeGreaterThan(2400);
      expect(reads).toBeLessThan(3400);
    } finally {
      await holder.query('ROLLBACK');
      await holder.end();
      await one.end();
    }
  });
});
