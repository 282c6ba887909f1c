// A guarded change that moves partitions (issue 20): the partition count change leaves
// partitions without a live owner until the coordinators rebalance, and the fleet rule
// raises unownedPartitions for the task (critical when none is owned). The default rule
// (any critical) does not count that alert for the task whose partitions moved; any other
// critical of the task still rolls it back, and a guard that names unownedPartitions as its
// rule counts it. The alert is written as the evaluator writes one (alerts + a fired event).
import { describe, expect, it, beforeAll } from 'vitest';
import { testDatabase, type TestDatabase } from './db';
import { applyTasks } from '../support/engine-fixtures';
import { saveTask, saveTaskInput } from '../../server/services/task-config';
import { watchGuardedRollouts } from '../../server/services/guarded-rollout';
import { currentConfig } from '../../server/services/config-versions';
import { findTask } from '../../server/core/config-edits';
import type { Actor } from '../../server/db/audit';

const alice: Actor = { type: 'user', id: '00000000-0000-4000-8000-00000000000a', label: 'alice@example.com' };

describe('guarded rollout: a change that moves partitions', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await testDatabase();
    await applyTasks(db.pool, [{ name: 'mover', partitions: 2, concurrency: 4 }]);
  });

  async function guarded(partitions: number, rule?: { severity: 'warning' | 'critical'; rule: string | null }) {
    const cur = await currentConfig(db.pool);
    const task = { name: 'mover', partitions, concurrency: 4 };
    return saveTask(db.pool, alice, saveTaskInput.parse({ mode: 'update', task, basedOn: cur.version, message: `mover ${partitions}`, guard: { bakeMs: 60_000, ...(rule ? { rule } : {}) } }));
  }

  async function fire(rule: string, severity: 'warning' | 'critical') {
    const a = await db.pool.query<{ id: string }>(
      `INSERT INTO alerts (key, task, rule, severity, status, since, fired_at, last_observed_at, last_value, threshold)
       VALUES ($1, 'mover', $2, $3, 'firing', now(), now(), now(), 2, 0) RETURNING id`,
      [`mover|${rule}|${Math.random()}`, rule, severity],
    );
    await db.pool.query(`INSERT INTO alert_events (alert_id, type, value, severity) VALUES ($1, 'fired', 2, $2)`, [a.rows[0]!.id, severity]);
    return Number(a.rows[0]!.id);
  }
  // The watcher reads events up to its `now`; a tick a second later than the event (the
  // event's time has µs, a Date ms: a tick within the same millisecond could miss it).
  const watch = () => watchGuardedRollouts(db.pool, new Date(Date.now() + 1000));
  const resolveAll = () => db.pool.query(`UPDATE alerts SET status = 'resolved', resolved_at = now() - interval '1 hour' WHERE task = 'mover'`);
  const statusOf = async (version: number) => (await db.pool.query<{ status: string; reason: string | null }>(`SELECT status, reason FROM config_guards WHERE version = $1`, [version])).rows[0]!;

  it('the default rule does not count its own unowned partitions; another critical still rolls it back', async () => {
    const g = await guarded(4);
    await fire('unownedPartitions', 'critical');
    expect(await watch()).toMatchObject({ baking: 1, rolledBack: 0 });
    expect((await statusOf(g.version)).status).toBe('baking');
    expect(findTask((await currentConfig(db.pool)).config, 'mover')!.partitions).toBe(4);

    await fire('depth', 'critical');
    expect(await watch()).toMatchObject({ rolledBack: 1 });
    expect(await statusOf(g.version)).toMatchObject({ status: 'rolled_back', reason: expect.stringMatching(/critical alert depth fired on mover/) });
    expect(findTask((await currentConfig(db.pool)).config, 'mover')!.partitions).toBe(2);
    await resolveAll();
  });

  it('a guard that names unownedPartitions as its rule counts it', async () => {
    const g = await guarded(8, { severity: 'warning', rule: 'unownedPartitions' });
    await fire('unownedPartitions', 'warning');
    expect(await watch()).toMatchObject({ rolledBack: 1 });
    expect(await statusOf(g.version)).toMatchObject({ status: 'rolled_back', reason: expect.stringMatching(/warning alert unownedPartitions fired on mover/) });
    await resolveAll();
  });

  it('a change that keeps the partition count counts the alert (the default rule unchanged)', async () => {
    const cur = await currentConfig(db.pool);
    const g = await saveTask(db.pool, alice, saveTaskInput.parse({ mode: 'update', task: { name: 'mover', partitions: 2, concurrency: 5 }, basedOn: cur.version, message: 'mover c5', guard: { bakeMs: 60_000 } }));
    await fire('unownedPartitions', 'critical');
    expect(await watch()).toMatchObject({ rolledBack: 1 });
    expect((await statusOf(g.version)).status).toBe('rolled_back');
  });
});
