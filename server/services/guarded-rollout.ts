// Guarded rollout (issue 20). "Apply with guard" stores the version as any apply does and,
// in the same transaction, a config_guards row: the tasks the version changed, the rule
// to watch (default: any critical alert of those tasks) and the bake time. The watcher
// (`watchGuardedRollouts`, run by the evaluate-alerts control-plane service right after
// each evaluation, so a guard sees an alert the tick it fires) steps each baking guard
// (core stepGuard): a matching alert fired in the bake → the tasks are reverted to the
// version before (the per-task revert: other tasks' edits made meanwhile stay), audited as
// the system with the reason and the alert as evidence, and webhooks are notified; the
// bake passed → promoted. Operators promote early or abort (= roll back now), audited.
// Everything for one guard — the revert version, the guard's end, the audit records, the
// webhook rows — commits in one transaction, so a crash leaves it baking, never half done.
import type pg from 'pg';
import { z } from 'zod';
import { CoreError, isCoreError } from '../core/errors';
import { diffConfigs } from '../core/config-diff';
import { findTask, withTask } from '../core/config-edits';
import { storedConfig } from '../core/stored-config';
import { describeGuardRule, formatBake, guardExemptions, guardOptionsSchema, stepGuard, type GuardDecision, type GuardState } from '../core/guarded-rollout';
import type { SluiceConfig } from '../core/task-definition';
import { SYSTEM_ACTOR, recordAudit, type Actor } from '../db/audit';
import { lockConfigWrites } from '../db/config-versions';
import { endGuard, lockBakingGuards, lockGuardOfVersion, readGuardAlertEvents, type GuardRow } from '../db/config-guards';
import { enqueueDeliveries } from '../db/webhook-deliveries';
import { withTransaction } from '../db/pool';
import { plan, store } from './task-config';
import { canonicalTask, versionConfig } from './guard-start';

export { guardStep, guardedTasks } from './guard-start';

export const guardVersionInput = z.strictObject({
  version: z.number({ error: 'must be a config version' }).int('must be a config version').min(1, 'must be a config version'),
});

export { guardOptionsSchema };

const stateOf = (g: GuardRow): GuardState => ({ status: g.status, tasks: g.tasks, rule: g.rule, startedAt: g.startedAt.getTime(), bakeUntil: g.bakeUntil.getTime() });

/** The guarded tasks whose current definition is no longer the guarded version's. */
async function editedSince(c: pg.PoolClient, g: GuardRow, current: SluiceConfig): Promise<string[]> {
  const guarded = await versionConfig(c, g.version);
  return g.tasks.filter((t) => canonicalTask(findTask(guarded, t)) !== canonicalTask(findTask(current, t)));
}

export interface GuardOutcome {
  version: number;
  status: GuardDecision['status'];
  rollbackVersion: number | null;
  reason: string | null;
}

/**
 * Ends a locked baking guard as `d` says, in the caller's transaction: for a rollback, one
 * new version with each guarded task's definition from the version before (audited as
 * task.revert per task), then the guard's end and its audit record, then webhooks.
 */
async function conclude(c: pg.PoolClient, actor: Actor, g: GuardRow, d: Exclude<GuardDecision, { status: 'baking' }>, at: Date): Promise<GuardOutcome> {
  let rollbackVersion: number | null = null;
  if (d.action === 'rollback') {
    const before = await versionConfig(c, g.previousVersion);
    const revert = (cfg: SluiceConfig) =>
      g.tasks.reduce((acc, name) => {
        const then = findTask(before, name);
        return then ? withTask(acc, then, findTask(acc, name) ? 'update' : 'create') : acc;
      }, cfg);
    const label = d.status === 'rolled_back' ? 'Rolled back by guard' : `Guard aborted by ${actor.label}`;
    try {
      const p = await plan(c, undefined, revert);
      const applied = await store(c, actor, p, `${label}: ${g.tasks.join(', ')} back to version ${g.previousVersion} (${d.reason})`.slice(0, 500), async (tx, v) => {
        for (const task of g.tasks) {
          await recordAudit(tx, actor, {
            action: 'task.revert',
            targetType: 'task',
            targetId: task,
            before: { version: p.basedOn },
            after: { version: v, definitionFrom: g.previousVersion },
            meta: { version: v, revertedTo: g.previousVersion, guardOf: g.version, changes: diffConfigs(p.before, p.after).filter((x) => x.task === task) },
          });
        }
      });
      rollbackVersion = applied.version;
    } catch (e) {
      // Already back as it was (someone reverted by hand): nothing to apply, the guard still ends.
      if (!(isCoreError(e) && e.code === 'PRECONDITION_FAILED')) throw e;
    }
  }
  const ended = await endGuard(c, g.id, { status: d.status, at, endedBy: actor.label, reason: d.reason, evidence: d.action === 'rollback' ? d.evidence : null, rollbackVersion });
  await recordAudit(c, actor, {
    action: `config.guard.${d.status === 'rolled_back' ? 'rollback' : d.status === 'aborted' ? 'abort' : d.status === 'promoted' ? 'promote' : 'supersede'}`,
    targetType: 'config',
    targetId: String(g.version),
    before: { status: 'baking', bakeUntil: g.bakeUntil },
    after: { status: d.status, rollbackVersion },
    meta: { reason: d.reason, tasks: g.tasks, rule: g.rule, evidence: ended.evidence },
  });
  if (d.status === 'rolled_back' || d.status === 'aborted') {
    const event = d.status === 'rolled_back' ? 'guard.rolled_back' : 'guard.aborted';
    await enqueueDeliveries(c, {
      alertId: d.action === 'rollback' && d.evidence ? d.evidence.alertId : null,
      event,
      // A rollback is worth every target's attention, whatever its minimum severity.
      severity: 'critical',
      payload: {
        event,
        guard: {
          version: g.version,
          tasks: g.tasks,
          restoredFrom: g.previousVersion,
          rollbackVersion,
          rule: describeGuardRule(g.rule),
          bake: formatBake(g.bakeMs),
          reason: d.reason,
          evidence: ended.evidence,
          by: actor.label,
          path: `/config/history?before=${(rollbackVersion ?? g.version) + 1}`,
        },
        sentAt: at.toISOString(),
      },
    });
  }
  return { version: g.version, status: d.status, rollbackVersion, reason: d.reason };
}

export interface WatchResult {
  baking: number;
  promoted: number;
  rolledBack: number;
  superseded: number;
}

/** One watcher tick over every baking guard; each guard in its own transaction. */
export async function watchGuardedRollouts(pool: pg.Pool, now = new Date()): Promise<WatchResult> {
  const res: WatchResult = { baking: 0, promoted: 0, rolledBack: 0, superseded: 0 };
  const ids = (await bakingGuardVersions(pool)).map((g) => g.version);
  for (const version of ids) {
    const out = await withTransaction(pool, async (c) => {
      // The config-write lock first: the revert's plan reads the true latest, and no
      // apply slips in between it and the new version.
      await lockConfigWrites(c);
      const g = await lockGuardOfVersion(c, version);
      if (!g || g.status !== 'baking') return null;
      const current = await currentConfigIn(c);
      const to = new Date(Math.min(now.getTime(), g.bakeUntil.getTime()));
      const alerts = await readGuardAlertEvents(c, g.tasks, g.startedAt, to);
      // What the change sets off by itself (a partition count change: its unowned partitions
      // until the rebalance) is not counted by the default rule.
      const exempt = guardExemptions(await versionConfig(c, g.previousVersion), await versionConfig(c, g.version), g.tasks);
      const d = stepGuard({ ...stateOf(g), exempt }, { type: 'tick', now: now.getTime(), alerts, editedSince: await editedSince(c, g, current) });
      if (d.status === 'baking') return 'baking' as const;
      return (await conclude(c, SYSTEM_ACTOR, g, d, now)).status;
    });
    if (out === 'baking') res.baking++;
    else if (out === 'promoted') res.promoted++;
    else if (out === 'rolled_back') res.rolledBack++;
    else if (out === 'superseded') res.superseded++;
  }
  return res;
}

/** The versions of the baking guards (read without holding locks; each is re-locked in its own transaction). */
async function bakingGuardVersions(pool: pg.Pool): Promise<GuardRow[]> {
  return withTransaction(pool, (c) => lockBakingGuards(c));
}

async function currentConfigIn(c: pg.PoolClient): Promise<SluiceConfig> {
  const r = await c.query<{ version: number; config: unknown }>(`SELECT version::int AS version, config FROM config_versions ORDER BY version DESC LIMIT 1`);
  return r.rows[0] ? storedConfig(r.rows[0]) : { tasks: [] } as unknown as SluiceConfig;
}

async function operatorAction(pool: pg.Pool, actor: Actor, version: number, type: 'promote' | 'abort'): Promise<GuardOutcome> {
  return withTransaction(pool, async (c) => {
    await lockConfigWrites(c);
    const g = await lockGuardOfVersion(c, version);
    if (!g) throw new CoreError('NOT_FOUND', `config version ${version} was not applied with guard`, { fieldErrors: [{ path: 'version', message: 'has no guard' }] });
    if (g.status !== 'baking') {
      throw new CoreError('PRECONDITION_FAILED', `the guard of version ${version} is already ${g.status.replace('_', ' ')}`, { fieldErrors: [{ path: 'version', message: `guard already ${g.status.replace('_', ' ')}` }] });
    }
    const d = stepGuard(stateOf(g), { type, now: Date.now() });
    if (d.status === 'baking') throw new Error('unreachable: an operator action always ends the bake');
    return conclude(c, actor, g, d, new Date());
  });
}

/** Ends the bake now, keeping the version. */
export function promoteGuard(pool: pg.Pool, actor: Actor, input: z.output<typeof guardVersionInput>): Promise<GuardOutcome> {
  return operatorAction(pool, actor, input.version, 'promote');
}

/** Ends the bake now and rolls the guarded tasks back. */
export function abortGuard(pool: pg.Pool, actor: Actor, input: z.output<typeof guardVersionInput>): Promise<GuardOutcome> {
  return operatorAction(pool, actor, input.version, 'abort');
}
