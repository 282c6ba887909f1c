// The circuit breaker inside the claim (issue 23): an open breaker claims nothing, whichever
// coordinator asks and whatever its own cache says — a member that has not yet seen another
// member's trip is refused by the database (under CI load one such member claimed 4 rows
// inside the cool-down, engine-circuit-breaker.test.ts, 2026-12-02). Half-open and closed
// claim as usual (the coordinators' gates limit half-open to the probes), and a cycle's
// claim (finish + claim in one call) is refused alike, its finish applied.
import { describe, expect, it, beforeAll } from 'vitest';
import { testDatabase, type TestDatabase } from './db';
import { applyTasks, fakeCoordinator } from '../support/engine-fixtures';
import { enqueue } from '../../server/services/enqueue';
import { claimExecutions } from '../../server/db/claim-executions';
import { finishAndClaimExecutions } from '../../server/db/finish-and-claim-executions';
import { recordBreakerOutcomes } from '../../server/coordinator/breaker-store';

let db: TestDatabase;
beforeAll(async () => {
  db = await testDatabase();
});

const setState = (task: string, state: 'open' | 'half-open' | 'closed') =>
  db.pool.query(
    `INSERT INTO task_breakers (task, state, opened_at) VALUES ($1, $2, now()) ON CONFLICT (task) DO UPDATE SET state = excluded.state`,
    [task, state],
  );
const queued = async (task: string) => Number((await db.pool.query(`SELECT count(*) AS n FROM executions WHERE task = $1 AND state = 'queued'`, [task])).rows[0].n);

describe('an open breaker in the claim', () => {
  it('refuses every claim while open, whoever asks; half-open and closed claim; attempts are not used', async () => {
    for (const grouped of [false, true]) {
      const task = grouped ? 'gate-grouped' : 'gate-plain';
      await applyTasks(db.pool, [
        {
          name: task,
          partitions: 2,
          concurrency: 10,
          ...(grouped ? { groups: [{ name: 'tenant', limit: 5, keyPath: 't' }] } : {}),
          circuitBreaker: { enabled: true, windowMs: 60_000, failureRate: 0.5, minCalls: 4, coolDownMs: 60_000, probes: 1 },
        },
      ]);
      await enqueue(db.pool, task, Array.from({ length: 8 }, (_, i) => ({ payload: { t: `t${i % 2}` } })));
      const coord = await fakeCoordinator(db.pool, [task]);

      await setState(task, 'open');
      expect(await claimExecutions(db.pool, coord, task, 5, 60_000)).toEqual([]);
      expect(await queued(task)).toBe(8);

      await setState(task, 'half-open');
      const probe = await claimExecutions(db.pool, coord, task, 1, 60_000);
      expect(probe).toHaveLength(1);

      // open again: the cycle finishes the probe and claims nothing
      await setState(task, 'open');
      const cycle = await finishAndClaimExecutions(db.pool, coord, task, [{ id: probe[0]!.id, leaseToken: probe[0]!.leaseToken, outcome: 'succeeded' }], 5, 60_000);
      expect(cycle.claimed).toEqual([]);
      const states = await db.pool.query<{ state: string; n: number }>(`SELECT state, count(*)::int AS n FROM executions WHERE task = $1 GROUP BY 1 ORDER BY 1`, [task]);
      expect(states.rows).toEqual([{ state: 'queued', n: 7 }, { state: 'succeeded', n: 1 }]);
      expect(Number((await db.pool.query(`SELECT coalesce(max(attempts), 0) AS a FROM executions WHERE task = $1 AND state = 'queued'`, [task])).rows[0].a)).toBe(0);

      await setState(task, 'closed');
      expect(await claimExecutions(db.pool, coord, task, 5, 60_000)).toHaveLength(5);
    }
  });

  it('a trip waits for a claim that holds the task lock, and every claim after it is refused', async () => {
    const settings = { enabled: true, windowMs: 60_000, failureRate: 0.5, minCalls: 4, coolDownMs: 60_000, probes: 1 };
    await applyTasks(db.pool, [{ name: 'gate-trip', partitions: 1, concurrency: 10, circuitBreaker: settings }]);
    await enqueue(db.pool, 'gate-trip', Array.from({ length: 6 }, (_, i) => ({ payload: { i } })));
    const coord = await fakeCoordinator(db.pool, ['gate-trip']);
    const claimer = await db.pool.connect();
    try {
      // a claim in progress: the task lock held, as sluice_claim_rows holds it until commit
      await claimer.query('BEGIN');
      await claimer.query(`SELECT 1 FROM task_runtime WHERE task = 'gate-trip' FOR NO KEY UPDATE`);
      let tripped = false;
      const trip = recordBreakerOutcomes(db.pool, 'gate-trip', settings, { ok: 0, failed: 5 }).then((r) => {
        tripped = true;
        return r;
      });
      await new Promise((r) => setTimeout(r, 300));
      expect(tripped).toBe(false); // waiting for the claim's lock
      const inFlight = await claimExecutions(claimer, coord, 'gate-trip', 2, 60_000);
      expect(inFlight).toHaveLength(2); // the claim that held the lock ends as it began
      await claimer.query('COMMIT');
      expect((await trip).breaker.state).toBe('open');
      expect(await claimExecutions(db.pool, coord, 'gate-trip', 4, 60_000)).toEqual([]);
      expect(await queued('gate-trip')).toBe(4);
    } finally {
      claimer.release();
    }
  });
});
