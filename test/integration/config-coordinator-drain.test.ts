// An operator asks a real coordinator process to drain (Coordinators page → drain): it
// stops claiming, finishes what it runs, marks itself stopped and exits 0; the other
// member takes all partitions; no execution is lost or run twice.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { testDatabase, type TestDatabase } from './db';
import { CoordinatorHarness, createRunsTable, waitFor } from '../support/coordinator-harness';
import { applyTasks } from '../support/engine-fixtures';
import { enqueue } from '../../server/services/enqueue';
import { requestCoordinatorDrain } from '../../server/services/coordinator-drain';
import { listCoordinators } from '../../server/presenters/coordinators';
import type { Actor } from '../../server/db/audit';

const operator: Actor = { type: 'user', id: '00000000-0000-4000-8000-0000000000d1', label: 'ops@example.com' };

let db: TestDatabase;
let harness: CoordinatorHarness;
beforeAll(async () => {
  db = await testDatabase();
  harness = new CoordinatorHarness(db.url);
  await createRunsTable(db.pool);
});
afterAll(async () => {
  await harness.stopAll();
});

const idOf = async (name: string) => (await db.pool.query<{ id: string }>('SELECT id FROM coordinators WHERE name = $1', [name])).rows[0]!.id;
const owned = async (id: string) => (await db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM partition_owners WHERE owner = $1 AND task = 'rec'`, [id])).rows[0]!.n;

describe('operator drain of a coordinator process', () => {
  it('finishes its running work, stops, exits 0; the other member takes every partition; nothing lost', async () => {
    await applyTasks(db.pool, [{ name: 'rec', partitions: 4, concurrency: 20 }]);
    const [a] = await Promise.all([harness.start({ name: 'drain-a', tasks: ['rec'] }), harness.start({ name: 'drain-b', tasks: ['rec'] })]);
    const [idA, idB] = [await idOf('drain-a'), await idOf('drain-b')];
    await waitFor('both to own partitions', async () => (await owned(idA)) > 0 && (await owned(idB)) > 0, 15_000);

    const r = await enqueue(db.pool, 'rec', Array.from({ length: 40 }, () => ({ payload: { sleepMs: 300 } })));
    const ids = r.executions.map((e) => e.id!);
    await waitFor('drain-a to be running something', async () => {
      const x = await db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM executions WHERE lease_owner = $1 AND state = 'running'`, [idA]);
      return x.rows[0]!.n > 0;
    }, 15_000, 20);

    const asked = await requestCoordinatorDrain(db.pool, operator, { id: idA });
    expect(asked.name).toBe('drain-a');
    expect((await listCoordinators(db.pool)).coordinators.find((c) => c.id === idA)?.status).toBe('draining');

    const code = await Promise.race([a.exited, new Promise<'timeout'>((res) => setTimeout(() => res('timeout'), 20_000))]);
    expect(code, a.output.join('')).toBe(0);
    expect(a.output.join('')).toContain('drain requested from the control plane: stopping');
    const row = await db.pool.query('SELECT stopped_at IS NOT NULL AS stopped, draining FROM coordinators WHERE id = $1', [idA]);
    expect(row.rows[0]).toEqual({ stopped: true, draining: true });

    await waitFor('drain-b to own all 4 partitions', async () => (await owned(idB)) === 4, 15_000);
    await waitFor('every execution to succeed', async () => {
      const x = await db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM executions WHERE id = ANY ($1) AND state = 'succeeded'`, [ids]);
      return x.rows[0]!.n === ids.length;
    }, 30_000);
    // Each ran exactly once: the drained member finished its own instead of abandoning them.
    const runs = await db.pool.query<{ execution_id: number; n: number }>(
      `SELECT execution_id, count(*)::int AS n FROM test_runs WHERE task = 'rec' GROUP BY 1 HAVING count(*) > 1`,
    );
    expect(runs.rows).toEqual([]);
    const byA = await db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM test_runs WHERE pid = $1`, [a.child.pid]);
    expect(byA.rows[0]!.n).toBeGreaterThan(0);
    const audit = await db.pool.query(`SELECT actor_label, target_id FROM audit_log WHERE action = 'coordinator.drain'`);
    expect(audit.rows).toEqual([{ actor_label: 'ops@example.com', target_id: idA }]);
  });
});
