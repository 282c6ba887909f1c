// Three-level config precedence on a real database (issue 16): fleet `defaults:` edited
// by an admin reach the tasks that inherit them — their runtime definition and their
// alert evaluation — and not a task that sets the field itself; the alert policy
// (for-duration) comes from the config too. Hostile input is refused by field, nothing written.
import { describe, it, expect, beforeAll } from 'vitest';
import { testDatabase, type TestDatabase } from './db';
import { applyTasks } from '../support/engine-fixtures';
import { callerAs, trpcCode } from '../support/trpc-caller';
import { enqueue } from '../../server/services/enqueue';
import { evaluateAlerts } from '../../server/services/alerts';

let db: TestDatabase;
const admin = { id: '00000000-0000-4000-8000-00000000d001', email: 'admin@sluice.local', role: 'admin' as const };
const operator = { id: '00000000-0000-4000-8000-00000000d002', email: 'op@sluice.local', role: 'operator' as const };

async function depthAlerts() {
  const r = await db.pool.query<{ task: string; status: string; severity: string; threshold: number }>(
    `SELECT task, status, severity, threshold FROM alerts WHERE rule = 'depth' ORDER BY task`,
  );
  return r.rows;
}
const versions = async () => (await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM config_versions')).rows[0]!.n;
const runtimeDef = async (task: string) =>
  (await db.pool.query<{ definition: { timeoutMs: number; thresholds: { depth: unknown }; inherited?: string[] } }>('SELECT definition FROM task_runtime WHERE task = $1', [task])).rows[0]!.definition;

beforeAll(async () => {
  db = await testDatabase();
  await applyTasks(db.pool, [
    { name: 'inherits', partitions: 1 },
    { name: 'overrides', partitions: 1, timeoutMs: 30_000, thresholds: { depth: { warning: 1000, critical: 5000 } } },
  ]);
  // Nobody claims: 20 queued in each task's one partition.
  for (const t of ['inherits', 'overrides']) await enqueue(db.pool, t, Array.from({ length: 20 }, (_, i) => ({ payload: { i } })));
});

describe('fleet defaults', () => {
  it('before: depth 20 is under the built-in line and nothing fires', async () => {
    await evaluateAlerts(db.pool, new Date());
    expect(await depthAlerts()).toEqual([]);
    expect((await runtimeDef('inherits')).inherited).toContain('thresholds.depth');
    expect((await runtimeDef('overrides')).inherited).not.toContain('thresholds.depth');
  });

  it('an operator may not edit the defaults; hostile input is refused by field and nothing is written', async () => {
    const before = await versions();
    const base = (await callerAs(db.pool, admin).defaults.get()).version;
    expect(await trpcCode(callerAs(db.pool, operator).defaults.save({ defaults: { timeoutMs: 5 }, basedOn: base, message: 'x' }))).toBe('FORBIDDEN');
    for (const defaults of [{ bogus: 1 }, { timeoutMs: 0 }, { thresholds: { depth: { warning: 9, critical: 3 } } }, { alertPolicy: { hysteresis: 2 } }, { retry: { maxAttempts: '3' } }]) {
      const e = await callerAs(db.pool, admin).defaults.save({ defaults, basedOn: base, message: 'bad' }).catch((x: unknown) => x);
      expect(e).toMatchObject({ code: 'BAD_REQUEST' });
      expect(JSON.stringify((e as { cause?: unknown }).cause ?? e)).toMatch(/defaults/);
    }
    expect(await trpcCode(callerAs(db.pool, admin).defaults.save({ defaults: { timeoutMs: 5 }, basedOn: base! + 5, message: 'stale' }))).toBe('CONFLICT');
    expect(await versions()).toBe(before);
  });

  it('the preview names the changed defaults and only the tasks that inherit them', async () => {
    const base = (await callerAs(db.pool, admin).defaults.get()).version;
    const p = await callerAs(db.pool, admin).defaults.preview({ defaults: { thresholds: { depth: { warning: 5, critical: 10 } } }, basedOn: base });
    expect(p.defaults).toEqual([{ path: 'thresholds.depth', before: undefined, after: { warning: 5, critical: 10 } }]);
    expect(p.changes.map((c) => c.task)).toEqual(['inherits']);
  });

  it('after an admin lowers the depth line and the for-duration: the inheriting task fires, the overriding one does not', async () => {
    const base = (await callerAs(db.pool, admin).defaults.get()).version;
    const saved = await callerAs(db.pool, admin).defaults.save({
      defaults: { timeoutMs: 1234, thresholds: { depth: { warning: 5, critical: 10 } }, alertPolicy: { forMs: 0 } },
      basedOn: base,
      message: 'tighter depth fleet-wide',
    });
    expect(saved.version).toBe(base! + 1);
    const stored = await db.pool.query('SELECT config -> $2::text AS defaults, author FROM config_versions WHERE version = $1', [saved.version, 'defaults']);
    expect(stored.rows[0]).toEqual({ defaults: { timeoutMs: 1234, thresholds: { depth: { warning: 5, critical: 10 } }, alertPolicy: { forMs: 0 } }, author: admin.email });
    expect(await runtimeDef('inherits')).toMatchObject({ timeoutMs: 1234, thresholds: { depth: { warning: 5, critical: 10 } } });
    expect(await runtimeDef('overrides')).toMatchObject({ timeoutMs: 30_000, thresholds: { depth: { warning: 1000, critical: 5000 } } });

    // No explicit policy: forMs 0 comes from the config, so the first breach fires.
    await evaluateAlerts(db.pool, new Date());
    expect(await depthAlerts()).toEqual([{ task: 'inherits', status: 'firing', severity: 'critical', threshold: 5 }]);

    const view = await callerAs(db.pool, operator).defaults.get();
    expect(view.sources).toMatchObject({ 'thresholds.depth': 'default', 'alertPolicy.forMs': 'default', 'retry.maxAttempts': 'built-in' });
    expect(view.inheriting['thresholds.depth']).toEqual(['inherits']);
  });

  it('a task saved from the editor without a field inherits it; with it, keeps its own', async () => {
    const { version } = await callerAs(db.pool, admin).tasks.get({ name: 'overrides' });
    await callerAs(db.pool, admin).tasks.save({ mode: 'update', task: { name: 'overrides', partitions: 1 }, basedOn: version, message: 'take the defaults' });
    expect(await runtimeDef('overrides')).toMatchObject({ timeoutMs: 1234, thresholds: { depth: { warning: 5, critical: 10 } } });
  });
});
