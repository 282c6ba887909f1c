// Evaluations that overlap (every control-plane instance runs the evaluator; tools and
// tests call it directly): each one completes, and a key has one open episode, not one per
// evaluation (alerts_open_key). Seen in an e2e run: a seed's evaluation and the server's own
// both inserted the same new alert and one failed with a duplicate key.
import { describe, it, expect, beforeAll } from 'vitest';
import { testDatabase, type TestDatabase } from './db';
import { applyTasks } from '../support/engine-fixtures';
import { setGroupKeyLoads, setPartitionDepths } from '../support/observe-fixtures';
import { evaluateAlerts } from '../../server/services/alerts';
import { DEFAULT_ALERT_POLICY } from '../../server/core/alert-evaluation';

let db: TestDatabase;

beforeAll(async () => {
  db = await testDatabase();
  await applyTasks(db.pool, [
    { name: 'busy', partitions: 4, thresholds: { depth: { warning: 100, critical: 500 } }, groups: [{ name: 'tenant', limit: 4, keyPath: 'tenant' }] },
    { name: 'calm', partitions: 2, thresholds: { depth: { warning: 100, critical: 500 } } },
  ]);
  await setPartitionDepths(db.pool, 'busy', [2600, 900, 700, 650]);
  await setPartitionDepths(db.pool, 'calm', [300, 250]);
  await setGroupKeyLoads(db.pool, 'busy', 'tenant', { acme: { inFlight: 4, queued: 2000 }, globex: { inFlight: 1, queued: 10 } });
}, 60_000);

describe('overlapping evaluations', () => {
  it('eight at once all complete and leave one open episode per key', async () => {
    const now = new Date();
    const results = await Promise.allSettled(Array.from({ length: 8 }, () => evaluateAlerts(db.pool, now, { ...DEFAULT_ALERT_POLICY, forMs: 0 })));
    expect(results.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason))).toEqual([]);
    const open = await db.pool.query<{ key: string; n: number }>(
      `SELECT key, count(*)::int AS n FROM alerts WHERE status IN ('pending', 'firing', 'acknowledged') GROUP BY key ORDER BY key`,
    );
    expect(open.rows.length).toBeGreaterThan(1);
    expect(open.rows.filter((r) => r.n > 1)).toEqual([]);
    // Exactly one evaluation opened each: the others found it and kept it.
    const fired = results.map((r) => (r as PromiseFulfilledResult<{ fired: number }>).value.fired);
    expect(fired.reduce((a, b) => a + b, 0)).toBe(open.rows.length);
  }, 60_000);
});
