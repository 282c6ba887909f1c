// Guarded rollout (issue 20) on a real database with real coordinators: a guarded change
// that makes a threshold breach (send-mail's tenant limit 8 → 1 under load, the depth
// critical line low and a 15 s for-duration so it fires fast) is rolled back by the
// control plane's evaluate-alerts service by itself — within the for-duration plus one
// evaluator tick — audited as the system with the alert as evidence, webhooks queued,
// every coordinator ends on the restored version, and another task's edit made during the
// bake stays. Then the operator paths (promote, abort), a bake that passes, a guard that
// stands down when its task is edited again, and refused input that writes nothing.
// Evaluator ticks are called with their time (15 s apart) rather than waited for; the
// coordinators run on the real clock.
import { describe, expect, it } from 'vitest';
import pg from 'pg';
import { applyTasks } from '../support/engine-fixtures';
import { coordinatorTestContext, waitFor } from '../support/coordinator-harness';
import { enqueue } from '../../server/services/enqueue';
import { saveTask, saveTaskInput } from '../../server/services/task-config';
import { abortGuard, promoteGuard, watchGuardedRollouts } from '../../server/services/guarded-rollout';
import { currentConfig } from '../../server/services/config-versions';
import { evaluateAlertsService } from '../../server/control-plane/services/evaluate-alerts';
import { ALERT_EVALUATION_INTERVAL_MS } from '../../server/core/alert-evaluation';
import { findTask } from '../../server/core/config-edits';
import { readChartMarkers } from '../../server/db/read-chart-markers';
import type { ServiceContext } from '../../server/control-plane/service';
import type { Actor } from '../../server/db/audit';

const ctx = coordinatorTestContext();
const alice: Actor = { type: 'user', id: '00000000-0000-4000-8000-00000000000a', label: 'alice@example.com' };
const bob: Actor = { type: 'user', id: '00000000-0000-4000-8000-00000000000b', label: 'bob@example.com' };
const q = async <T = Record<string, unknown>>(sql: string, params: unknown[] = []) => (await ctx.db.pool.query(sql, params)).rows as T[];

const FOR_MS = 15_000;
const mail = (tenantLimit: number) => ({
  name: 'send-mail',
  partitions: 2,
  concurrency: 20,
  groups: [{ name: 'tenant', limit: tenantLimit, keyPath: 'tenant' }],
  thresholds: { depth: { warning: 40, critical: 80 }, alertAfterMs: FOR_MS },
});
const bill = (concurrency: number) => ({ name: 'bill', partitions: 1, concurrency });

async function definitionOf(name: string) {
  const cur = await currentConfig(ctx.db.pool);
  return { version: cur.version!, def: findTask(cur.config, name)! };
}

async function saveWith(actor: Actor, task: Record<string, unknown>, message: string, guard?: { bakeMs: number }) {
  const cur = await currentConfig(ctx.db.pool);
  return saveTask(ctx.db.pool, actor, saveTaskInput.parse({ mode: 'update', task, basedOn: cur.version, message, ...(guard ? { guard } : {}) }));
}

/** One run of the control plane's evaluate-alerts service (evaluation, then the guard watcher) at `now`. */
const tick = (now: Date) => evaluateAlertsService.run({ pool: ctx.db.pool, now } as unknown as ServiceContext) as Promise<{ fired: number; guards: { rolledBack: number; baking: number } }>;

describe('guarded rollout', () => {
  it('rolls a breaching change back by itself within the for-duration plus one tick; coordinators end on the restored version; another task’s edit stays', async () => {
    await applyTasks(ctx.db.pool, [mail(8), bill(3)]);
    await ctx.db.pool.query(`INSERT INTO webhook_targets (name, url, min_severity, enabled, created_by) VALUES ('ops', 'https://hooks.example.com/x', 'critical', true, 'test')`);
    await ctx.h.start({ name: 'a', slots: 10 });
    await ctx.h.start({ name: 'b', slots: 10 });
    const before = await definitionOf('send-mail');

    const guarded = await saveWith(alice, mail(1), 'globex down to 1', { bakeMs: 600_000 });
    const [g0] = await q<{ status: string; tasks: string[]; previous_version: number; bake_ms: number; created_by: string }>(`SELECT * FROM config_guards WHERE version = $1`, [guarded.version]);
    expect(g0).toMatchObject({ status: 'baking', tasks: ['send-mail'], previous_version: before.version, bake_ms: 600_000, created_by: 'alice@example.com' });

    // Load on one tenant: with its limit at 1 the backlog stands far above the critical line.
    await enqueue(ctx.db.pool, 'send-mail', Array.from({ length: 400 }, (_, i) => ({ payload: { tenant: 'globex', sleepMs: 100, i } })));
    // Bob's unrelated edit during the bake.
    const billEdit = await saveWith(bob, bill(9), 'bill: more room');

    const T0 = Date.now();
    const first = await tick(new Date(T0));
    expect(first.guards).toMatchObject({ baking: 1, rolledBack: 0 }); // breaching, not yet for its for-duration
    const second = await tick(new Date(T0 + ALERT_EVALUATION_INTERVAL_MS)); // = T0 + for-duration: fires, and the watcher acts in the same tick
    expect(second.fired).toBeGreaterThanOrEqual(1);
    expect(second.guards.rolledBack).toBe(1);

    const [g] = await q<{ status: string; ended_by: string; ended_at: Date; reason: string; evidence: Record<string, unknown>; rollback_version: string }>(
      `SELECT * FROM config_guards WHERE version = $1`,
      [guarded.version],
    );
    expect(g!.status).toBe('rolled_back');
    expect(g!.ended_by).toBe('system');
    expect(g!.ended_at.getTime() - T0).toBeLessThanOrEqual(FOR_MS + ALERT_EVALUATION_INTERVAL_MS);
    expect(g!.evidence).toMatchObject({ task: 'send-mail', rule: 'depth', severity: 'critical', type: 'fired' });
    expect(Number(g!.evidence.value)).toBeGreaterThan(80);
    expect(g!.reason).toContain('depth');
    const [alert] = await q<{ id: string }>(`SELECT id FROM alerts WHERE task = 'send-mail' AND rule = 'depth' AND status = 'firing'`);
    expect(g!.evidence.alertId).toBe(Number(alert!.id));

    // The task is back, Bob's edit stayed.
    const rollback = Number(g!.rollback_version);
    const after = await currentConfig(ctx.db.pool);
    expect(after.version).toBe(rollback);
    expect(rollback).toBe(billEdit.version + 1);
    expect(findTask(after.config, 'send-mail')!.groups).toEqual(before.def.groups);
    expect(findTask(after.config, 'bill')!.concurrency).toBe(9);
    const [v] = await q<{ author: string; message: string }>(`SELECT author, message FROM config_versions WHERE version = $1`, [rollback]);
    expect(v!.author).toBe('system');
    expect(v!.message).toMatch(/^Rolled back by guard: send-mail back to version \d+ \(critical alert depth fired/);

    // Audited as the system, with the evidence.
    const audit = await q<{ action: string; actor_type: string; target_id: string; meta: Record<string, unknown> }>(
      `SELECT action, actor_type, target_id, meta FROM audit_log WHERE action IN ('task.revert', 'config.guard.rollback', 'config.guard.start') ORDER BY id`,
    );
    expect(audit.map((a) => [a.action, a.actor_type, a.target_id])).toEqual([
      ['config.guard.start', 'user', String(guarded.version)],
      ['task.revert', 'system', 'send-mail'],
      ['config.guard.rollback', 'system', String(guarded.version)],
    ]);
    expect(audit[2]!.meta).toMatchObject({ evidence: { alertId: Number(alert!.id), rule: 'depth' } });

    // Webhooks told.
    const hooks = await q<{ event: string; payload: { guard: Record<string, unknown> } }>(`SELECT event, payload FROM webhook_deliveries WHERE event LIKE 'guard.%'`);
    expect(hooks).toHaveLength(1);
    expect(hooks[0]!.payload.guard).toMatchObject({ version: guarded.version, tasks: ['send-mail'], rollbackVersion: rollback, by: 'system' });

    // Every coordinator ends on the restored version.
    await waitFor(
      'both coordinators on the rollback version',
      async () => {
        const rows = await q<{ applied_version: string | null }>(`SELECT applied_version FROM coordinators WHERE stopped_at IS NULL`);
        return rows.length === 2 && rows.every((r) => Number(r.applied_version) === rollback);
      },
      20_000,
    );

    // The chart marks it: the guarded apply, then the rollback (not again as a plain config change).
    const markers = await readChartMarkers(ctx.db.pool, 'send-mail', new Date(T0 - 3_600_000), new Date(T0 + 3_600_000));
    expect(markers.filter((m) => m.ref === String(guarded.version)).map((m) => m.kind).sort()).toEqual(['guarded', 'rolled-back']);
    expect(markers.find((m) => m.kind === 'rolled-back')!.count).toBe(rollback);
    expect(markers.some((m) => m.kind === 'config' && m.ref === String(rollback))).toBe(false);

    // Once over, a later tick leaves it alone.
    expect((await tick(new Date(T0 + 2 * ALERT_EVALUATION_INTERVAL_MS))).guards.rolledBack).toBe(0);
    expect((await currentConfig(ctx.db.pool)).version).toBe(rollback);
  }, 90_000);

  it('promote early and abort: audited with the operator; abort reverts only the guarded task', async () => {
    const p = await saveWith(alice, bill(10), 'bill 10', { bakeMs: 60_000 });
    const promoted = await promoteGuard(ctx.db.pool, bob, { version: p.version });
    expect(promoted).toMatchObject({ status: 'promoted', rollbackVersion: null });
    expect((await definitionOf('bill')).def.concurrency).toBe(10);
    await expect(promoteGuard(ctx.db.pool, bob, { version: p.version })).rejects.toMatchObject({ code: 'PRECONDITION_FAILED', fieldErrors: [{ path: 'version' }] });
    await expect(abortGuard(ctx.db.pool, bob, { version: 1 })).rejects.toMatchObject({ code: 'NOT_FOUND', fieldErrors: [{ path: 'version' }] });

    const a = await saveWith(alice, bill(11), 'bill 11', { bakeMs: 60_000 });
    const aborted = await abortGuard(ctx.db.pool, bob, { version: a.version });
    expect(aborted).toMatchObject({ status: 'aborted', rollbackVersion: a.version + 1 });
    expect((await definitionOf('bill')).def.concurrency).toBe(10);
    const audit = await q<{ action: string; actor_label: string }>(`SELECT action, actor_label FROM audit_log WHERE action IN ('config.guard.promote', 'config.guard.abort') ORDER BY id`);
    expect(audit).toEqual([
      { action: 'config.guard.promote', actor_label: 'bob@example.com' },
      { action: 'config.guard.abort', actor_label: 'bob@example.com' },
    ]);
  });

  it('a bake that passes is promoted by the system, also by a control plane that restarted mid-bake', async () => {
    // A task of its own: the first test's evaluator ticks ran ahead of the clock and left
    // alerts of bill (unowned partitions) stamped inside this bake.
    const cur = await currentConfig(ctx.db.pool);
    await saveTask(ctx.db.pool, alice, saveTaskInput.parse({ mode: 'create', task: { name: 'calm', partitions: 1, concurrency: 1 }, basedOn: cur.version, message: 'calm' }));
    const g = await saveWith(alice, { name: 'calm', partitions: 1, concurrency: 2 }, 'calm 2', { bakeMs: 30_000 });
    // A fresh pool: nothing of the guard lives in the process that applied it.
    const restarted = new pg.Pool({ connectionString: ctx.db.url, max: 2 });
    try {
      expect(await watchGuardedRollouts(restarted, new Date(Date.now() + 10_000))).toMatchObject({ baking: 1 });
      expect(await watchGuardedRollouts(restarted, new Date(Date.now() + 31_000))).toMatchObject({ promoted: 1 });
    } finally {
      await restarted.end();
    }
    const [row] = await q<{ status: string; ended_by: string; reason: string }>(`SELECT status, ended_by, reason FROM config_guards WHERE version = $1`, [g.version]);
    expect(row).toMatchObject({ status: 'promoted', ended_by: 'system' });
    expect(row!.reason).toMatch(/^bake of 30s passed without any critical alert$/);
  });

  it('stands down when the guarded task is edited again during the bake (the later edit is kept)', async () => {
    const g = await saveWith(alice, bill(13), 'bill 13', { bakeMs: 60_000 });
    await saveWith(bob, bill(14), 'bill 14, on top');
    expect((await watchGuardedRollouts(ctx.db.pool)).superseded).toBe(1);
    expect((await q<{ status: string }>(`SELECT status FROM config_guards WHERE version = $1`, [g.version]))[0]!.status).toBe('superseded');
    expect((await definitionOf('bill')).def.concurrency).toBe(14);
  });

  it('refuses bad guard input and a guard with nothing to watch, writing nothing', async () => {
    const bad = saveTaskInput.safeParse({ mode: 'update', task: bill(15), basedOn: 1, message: 'x', guard: { bakeMs: 10, rule: { severity: 'fatal' } } });
    expect(bad.success).toBe(false);
    expect(bad.error!.issues.map((i) => i.path.join('.')).sort()).toEqual(['guard.bakeMs', 'guard.rule.severity']);

    const cur = await currentConfig(ctx.db.pool);
    const create = saveTaskInput.parse({ mode: 'create', task: { name: 'fresh', partitions: 1 }, basedOn: cur.version, message: 'new', guard: { bakeMs: 60_000 } });
    await expect(saveTask(ctx.db.pool, alice, create)).rejects.toMatchObject({ code: 'PRECONDITION_FAILED', fieldErrors: [{ path: 'guard' }] });
    expect((await currentConfig(ctx.db.pool)).version).toBe(cur.version);
    expect(findTask((await currentConfig(ctx.db.pool)).config, 'fresh')).toBeUndefined();
  });
});
