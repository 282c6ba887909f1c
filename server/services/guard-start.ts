// The start of a guarded rollout (issue 20; the watcher and operator actions are in
// guarded-rollout.ts): the guard row and its audit record, written as a step of the
// transaction that stores the guarded version, so the two exist together or not at all.
import type pg from 'pg';
import { CoreError } from '../core/errors';
import { canonicalConfig } from '../core/config-diff';
import { findTask } from '../core/config-edits';
import { storedConfig } from '../core/stored-config';
import type { GuardOptions } from '../core/guarded-rollout';
import type { SluiceConfig, TaskDefinition } from '../core/task-definition';
import { recordAudit, type Actor } from '../db/audit';
import { getConfigVersion } from '../db/config-versions';
import { insertGuard } from '../db/config-guards';
import type { Db } from '../db/pool';

export const canonicalTask = (t: TaskDefinition | undefined) => (t === undefined ? null : JSON.stringify(canonicalConfig({ tasks: [t] } as SluiceConfig).tasks[0]));

/** The tasks `after` changed that existed in `before` (a new task has nothing to go back to). */
export function guardedTasks(before: SluiceConfig, after: SluiceConfig): string[] {
  return after.tasks
    .filter((t) => {
      const was = findTask(before, t.name);
      return was !== undefined && canonicalTask(was) !== canonicalTask(t);
    })
    .map((t) => t.name)
    .sort();
}

export async function versionConfig(db: Db, version: number): Promise<SluiceConfig> {
  const row = await getConfigVersion(db, version);
  if (!row) throw CoreError.notFound(`config version ${version}`);
  return storedConfig(row);
}

/**
 * The guard row of a version being stored (an applyConfig `inSameTransaction` step): the
 * version before is version − 1 (numbers are max + 1 under the config-write lock). A
 * version that changes no existing task cannot be guarded: refused, nothing stored.
 */
export function guardStep(actor: Actor, options: GuardOptions): (c: pg.PoolClient, version: number) => Promise<void> {
  return async (c, version) => {
    if (version < 2) throw new CoreError('PRECONDITION_FAILED', 'the first config version has nothing to roll back to; apply it without guard', { fieldErrors: [{ path: 'guard', message: 'nothing to roll back to' }] });
    const [before, after] = await Promise.all([versionConfig(c, version - 1), versionConfig(c, version)]);
    const tasks = guardedTasks(before, after);
    if (tasks.length === 0) {
      throw new CoreError('PRECONDITION_FAILED', 'this change only adds or removes tasks; a guard watches changed tasks, so apply it without guard', {
        fieldErrors: [{ path: 'guard', message: 'no changed task to watch' }],
      });
    }
    const g = await insertGuard(c, { version, previousVersion: version - 1, tasks, rule: options.rule, bakeMs: options.bakeMs, createdBy: actor.label });
    await recordAudit(c, actor, {
      action: 'config.guard.start',
      targetType: 'config',
      targetId: String(version),
      after: { status: 'baking', tasks, rule: options.rule, bakeMs: options.bakeMs, bakeUntil: g.bakeUntil },
      meta: { version, previousVersion: version - 1 },
    });
  };
}

