// Config precedence, the task and key levels (issue 16), on a real database: the alert
// evaluator runs each task under its own for / clear durations and hysteresis (task over
// the fleet `defaults.alertPolicy`), judges a group key against the key's own wait lines
// (rule keyWait), and a coordinator retries an execution under its key's retry policy
// (key over task over fleet default).
import { describe, expect, it } from 'vitest';
import { applyTasks } from '../support/engine-fixtures';
import { coordinatorTestContext, waitFor } from '../support/coordinator-harness';
import { enqueue } from '../../server/services/enqueue';
import { evaluateAlerts } from '../../server/services/alerts';
import { applyConfig } from '../../server/services/config-versions';
import { SYSTEM_ACTOR } from '../../server/db/audit';

const ctx = coordinatorTestContext();
const q = async <T = Record<string, unknown>>(sql: string, params: unknown[] = []) => (await ctx.db.pool.query(sql, params)).rows as T[];
const alerts = (rule: string) =>
  q<{ task: string; subject: string; status: string; severity: string; threshold: number }>(
    `SELECT task, subject, status, severity, threshold FROM alerts WHERE rule = $1 ORDER BY task, subject, id`,
    [rule],
  );

describe('task-level alert policy', () => {
  it('each task fires, holds and clears under its own policy, others under the fleet one', async () => {
    const lines = (warning: number) => ({ depth: { warning, critical: 1000 } });
    const v1 = (w: number) => [
      // for 0, clear 0, no hysteresis: opens at once, resolves on the first clear round
      { name: 'quick', partitions: 1, thresholds: { ...lines(w), alertAfterMs: 0, clearAfterMs: 0, hysteresis: 0 } },
      // for 0 but the fleet's clear duration and hysteresis
      { name: 'fleet', partitions: 1, thresholds: { ...lines(w), alertAfterMs: 0 } },
      // wide hysteresis: stays breaching while the value is above half the line
      { name: 'sticky', partitions: 1, thresholds: { ...lines(w), alertAfterMs: 0, clearAfterMs: 0, hysteresis: 0.5 } },
    ];
    await applyConfig(ctx.db.pool, SYSTEM_ACTOR, { defaults: { alertPolicy: { clearForMs: 600_000, hysteresis: 0 } }, tasks: v1(10) }, { message: 'v1' });
    for (const t of ['quick', 'fleet', 'sticky']) await enqueue(ctx.db.pool, t, Array.from({ length: 20 }, (_, i) => ({ payload: { i } })));
    const t0 = Date.now();
    await evaluateAlerts(ctx.db.pool, new Date(t0));
    expect((await alerts('depth')).map((a) => [a.task, a.status])).toEqual([['fleet', 'firing'], ['quick', 'firing'], ['sticky', 'firing']]);

    // The line moves to 30: depth 20 is clear for quick and fleet, but within sticky's
    // hysteresis (30 × 0.5 = 15 < 20).
    await applyConfig(ctx.db.pool, SYSTEM_ACTOR, { defaults: { alertPolicy: { clearForMs: 600_000, hysteresis: 0 } }, tasks: v1(30) }, { message: 'v2' });
    await evaluateAlerts(ctx.db.pool, new Date(t0 + 15_000));
    expect((await alerts('depth')).map((a) => [a.task, a.status])).toEqual([['fleet', 'firing'], ['quick', 'resolved'], ['sticky', 'firing']]);
    // Ten minutes of clear later the fleet's clear duration resolves the other.
    await evaluateAlerts(ctx.db.pool, new Date(t0 + 15_000 + 600_000));
    expect((await alerts('depth')).map((a) => [a.task, a.status])).toEqual([['fleet', 'resolved'], ['quick', 'resolved'], ['sticky', 'firing']]);
  });
});

describe('per-key wait lines (keyWait)', () => {
  it('a key with its own wait lines fires past them, escalates, and other keys stay silent', async () => {
    await applyTasks(ctx.db.pool, [
      {
        name: 'waits',
        partitions: 2,
        thresholds: { alertAfterMs: 0 },
        groups: [{ name: 'tenant', limit: 1, keyPath: 'tenant', keyPolicies: { acme: { waitMs: { warning: 2000, critical: 20_000 } } } }],
      },
    ]);
    await enqueue(ctx.db.pool, 'waits', [{ payload: { tenant: 'acme' } }, { payload: { tenant: 'globex' } }]);
    const enqueuedAt = Date.now();
    // Not yet past the warning line.
    await evaluateAlerts(ctx.db.pool, new Date(enqueuedAt + 500));
    expect(await alerts('keyWait')).toEqual([]);
    await evaluateAlerts(ctx.db.pool, new Date(enqueuedAt + 5000));
    expect(await alerts('keyWait')).toEqual([{ task: 'waits', subject: 'tenant=acme', status: 'firing', severity: 'warning', threshold: 2000 }]);
    const [row] = await q<{ evidence: Record<string, unknown>; last_value: number }>(`SELECT evidence, last_value FROM alerts WHERE rule = 'keyWait'`);
    expect(row!.evidence).toMatchObject({ group: 'tenant', key: 'acme', warning: 2000, critical: 20_000, source: 'key' });
    expect(row!.last_value).toBeGreaterThanOrEqual(4000);
    await evaluateAlerts(ctx.db.pool, new Date(enqueuedAt + 30_000));
    expect((await alerts('keyWait')).map((a) => a.severity)).toEqual(['critical']);
  });
});

describe('per-key retry policy', () => {
  it('a failing execution gets its key’s attempts, the task’s, or the fleet default', async () => {
    await applyConfig(
      ctx.db.pool,
      SYSTEM_ACTOR,
      {
        defaults: { retry: { maxAttempts: 4 } },
        tasks: [
          {
            name: 'keyretry',
            partitions: 1,
            concurrency: 4,
            retry: { backoff: 'fixed', baseDelayMs: 10, maxDelayMs: 10, jitter: 0 },
            groups: [{ name: 'tenant', limit: 4, keyPath: 'tenant', keyPolicies: { acme: { retry: { maxAttempts: 1 } }, globex: { retry: { maxAttempts: 6 } } } }],
          },
        ],
      },
      { message: 'key retry' },
    );
    await ctx.h.start({ name: 'k', slots: 4, handlers: 'test/support/handlers/key-retry.ts' });
    await enqueue(ctx.db.pool, 'keyretry', [{ payload: { tenant: 'acme' } }, { payload: { tenant: 'globex' } }, { payload: { tenant: 'initech' } }]);
    await waitFor('all three dead', async () => (await q(`SELECT 1 FROM executions WHERE task = 'keyretry' AND state = 'dead'`)).length === 3, 30_000, 50);
    const rows = await q<{ tenant: string; attempts: number; runs: number }>(
      `SELECT e.payload ->> 'tenant' AS tenant, e.attempts, (SELECT count(*)::int FROM test_runs r WHERE r.execution_id = e.id) AS runs
       FROM executions e WHERE task = 'keyretry' ORDER BY 1`,
    );
    expect(rows).toEqual([
      { tenant: 'acme', attempts: 1, runs: 1 },
      { tenant: 'globex', attempts: 6, runs: 6 },
      { tenant: 'initech', attempts: 4, runs: 4 },
    ]);
  });
});
