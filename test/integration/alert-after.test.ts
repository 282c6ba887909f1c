// A task's thresholds.alertAfterMs on a real database: its alerts (threshold rules and
// the detectors alike) fire once the condition has held that long, while a task without
// it keeps the evaluator's policy (here the default minute); clearing still takes the
// policy's clearForMs. Times are evaluation times, 15 s apart as in the control plane.
import { describe, it, expect, beforeAll } from 'vitest';
import { testDatabase, type TestDatabase } from './db';
import { applyTasks } from '../support/engine-fixtures';
import { setPartitionDepths } from '../support/observe-fixtures';
import { evaluateAlerts } from '../../server/services/alerts';
import { DEFAULT_ALERT_POLICY } from '../../server/core/alert-evaluation';

let db: TestDatabase;
const T0 = Date.now();
const at = (s: number) => new Date(T0 + s * 1000);
const thresholds = { depth: { warning: 500, critical: 5000 } };

async function statuses(): Promise<Record<string, string>> {
  const r = await db.pool.query<{ key: string; status: string }>(`SELECT key, status FROM alerts WHERE status <> 'resolved' ORDER BY key`);
  return Object.fromEntries(r.rows.map((a) => [a.key, a.status]));
}

beforeAll(async () => {
  db = await testDatabase();
  await applyTasks(db.pool, [
    { name: 'quick', partitions: 4, routing: { strategy: 'hash', keyPath: 'tenant' }, thresholds: { ...thresholds, alertAfterMs: 15_000 } },
    { name: 'plain', partitions: 4, routing: { strategy: 'hash', keyPath: 'tenant' }, thresholds },
  ]);
  // One hot partition each: above the hot-partition floor (100) and the depth line (500),
  // and an imbalance far above 2.
  await setPartitionDepths(db.pool, 'quick', [900, 5, 0, 10]);
  await setPartitionDepths(db.pool, 'plain', [900, 5, 0, 10]);
});

describe('thresholds.alertAfterMs', () => {
  it.each<{ s: number; quick: string; plain: string }>([
    { s: 0, quick: 'pending', plain: 'pending' },
    { s: 15, quick: 'firing', plain: 'pending' },
    { s: 30, quick: 'firing', plain: 'pending' },
    { s: 45, quick: 'firing', plain: 'pending' },
    { s: 60, quick: 'firing', plain: 'firing' },
  ])('evaluation at +$s s: quick $quick, plain $plain', async ({ s, quick, plain }) => {
    await evaluateAlerts(db.pool, at(s), DEFAULT_ALERT_POLICY);
    const rules = ['depth', 'imbalance', 'hotPartition'] as const;
    const subject = (rule: string) => (rule === 'hotPartition' ? '0' : '');
    const want = Object.fromEntries(
      (['plain', 'quick'] as const).flatMap((task) => rules.map((rule) => [`${task}|${rule}|${subject(rule)}`, task === 'quick' ? quick : plain])),
    );
    expect(await statuses()).toEqual(want);
  });

  it('each alert fired at its first breach + the hold: quick at +15 s, plain at +60 s', async () => {
    const fired = await db.pool.query<{ task: string; at: Date }>(`SELECT DISTINCT task, fired_at AS at FROM alerts ORDER BY task`);
    expect(fired.rows).toEqual([
      { task: 'plain', at: at(60) },
      { task: 'quick', at: at(15) },
    ]);
  });

  it('clearing still takes the policy clearForMs (2 min)', async () => {
    await setPartitionDepths(db.pool, 'quick', [0, 0, 0, 0]);
    await evaluateAlerts(db.pool, at(75), DEFAULT_ALERT_POLICY);
    await evaluateAlerts(db.pool, at(180), DEFAULT_ALERT_POLICY);
    expect(Object.entries(await statuses()).filter(([k]) => k.startsWith('quick|'))).toHaveLength(3);
    await evaluateAlerts(db.pool, at(195), DEFAULT_ALERT_POLICY);
    expect(Object.keys(await statuses()).filter((k) => k.startsWith('quick|'))).toEqual([]);
  });
});
