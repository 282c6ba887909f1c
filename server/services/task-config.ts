// The editor's operations: create or update a task, delete one (only when idle, or
// with an explicit drain), pause / resume, roll back to an older version. Each is a
// pure edit of the current config (core/config-edits.ts) stored through applyConfig, so
// every change is a new immutable version with its audit record and NOTIFY in one
// transaction. Optimistic concurrency: an edit carries the version it was based on; a
// newer stored version refuses it with CONFLICT (checked here for an early answer and
// again by applyConfig under the config-write lock, so a race between the two is refused
// too, never silently merged).
import type pg from 'pg';
import type { Db } from '../db/pool';
import { z } from 'zod';
import { inputRecord, inputText } from '../core/input-text';
import { CoreError, isCoreError } from '../core/errors';
import { configsEqual, diffConfigs } from '../core/config-diff';
import { groupChangesByTask, type TaskChangeGroup } from '../core/config-change-view';
import { withTask, withTaskPaused, withoutTask } from '../core/config-edits';
import { markInherited, parseConfig, parseTaskDefinition, taskNameSchema, type SluiceConfig } from '../core/task-definition';
import { errorFingerprint } from '../core/fingerprint';
import { recordAudit, type Actor } from '../db/audit';
import { drainTaskBacklog, type DrainedBacklog } from '../db/drain-task-backlog';
import { readTaskLoad } from '../db/task-load';
import { applyConfig, configAtVersion, currentConfig } from './config-versions';
import { guardStep } from './guard-start';
import { guardOptionsSchema } from '../core/guarded-rollout';

const version = z.number().int('must be a whole number').min(1, 'must be at least 1');
const message = inputText.trim().max(500, 'must be at most 500 characters');
const requiredMessage = message.min(1, 'describe the change (it is shown in the history)');

export const saveTaskInput = z.strictObject({
  mode: z.enum(['create', 'update']),
  /** The task definition as the form holds it; validated field by field in the service. */
  task: inputRecord(z.string(), z.unknown()),
  /** The version the editor loaded; null only when no config exists yet. */
  basedOn: version.nullable(),
  message: requiredMessage,
  /** Apply with guard: bake time and rule; the task goes back by itself if the rule fires in the bake. */
  guard: guardOptionsSchema.optional(),
});
export const previewTaskInput = saveTaskInput.omit({ message: true, guard: true });

export const deleteTaskInput = z.strictObject({
  task: taskNameSchema,
  basedOn: version.nullable(),
  message: requiredMessage,
  /** Move a busy task's backlog to the dead-letter queue instead of refusing. */
  drain: z.boolean().default(false),
});

export const pauseTaskInput = z.strictObject({
  task: taskNameSchema,
  paused: z.boolean(),
  message: message.optional(),
});

export const rollbackInput = z.strictObject({
  /** The older version whose config becomes the new one. */
  to: version,
  basedOn: version,
  message: message.optional(),
  /** Revert only this task to its definition in `to`; every other task stays as it is now. */
  task: taskNameSchema.optional(),
});

export const previewRollbackInput = rollbackInput.omit({ message: true });

export interface ConfigEditPreview {
  basedOn: number | null;
  changes: TaskChangeGroup[];
}

export interface AppliedEdit extends ConfigEditPreview {
  version: number;
}

export interface DeletedTask extends AppliedEdit {
  drained: DrainedBacklog | null;
}

function staleVersion(basedOn: number, latest: number | null): CoreError {
  return new CoreError(
    'CONFLICT',
    latest === null
      ? `your edit is based on version ${basedOn}, but there is no config yet; reload`
      : `config changed since version ${basedOn}: the latest is version ${latest}; reload and re-apply your change`,
  );
}

export interface Planned {
  basedOn: number | null;
  before: SluiceConfig;
  after: SluiceConfig;
}

/** An edited config with inherited fields resolved against its defaults (what applying it stores). */
function resolved(c: SluiceConfig): SluiceConfig {
  const r = parseConfig(c);
  if (!r.ok) throw CoreError.validation(r.errors);
  return r.value;
}

/** Current config → edited config, refusing a stale base and an edit that changes nothing. */
export async function plan(db: Db, basedOn: number | null | undefined, edit: (c: SluiceConfig) => SluiceConfig): Promise<Planned> {
  const cur = await currentConfig(db);
  if (basedOn !== undefined && basedOn !== cur.version) {
    if (basedOn === null) throw new CoreError('CONFLICT', `a config was stored meanwhile (version ${cur.version}); reload and re-apply your change`);
    throw staleVersion(basedOn, cur.version);
  }
  const after = resolved(edit(cur.config));
  if (configsEqual(after, cur.config)) {
    throw new CoreError('PRECONDITION_FAILED', 'nothing to apply: this is the same as the current version');
  }
  return { basedOn: cur.version, before: cur.config, after };
}

export async function store(
  db: Db,
  actor: Actor,
  p: Planned,
  msg: string,
  inSameTransaction?: (c: pg.PoolClient, version: number) => Promise<void>,
): Promise<AppliedEdit> {
  const applied = await applyConfig(db, actor, p.after, { message: msg, basedOn: p.basedOn, ...(inSameTransaction ? { inSameTransaction } : {}) });
  return { version: applied.version, basedOn: p.basedOn, changes: groupChangesByTask(diffConfigs(p.before, p.after)) };
}

function taskEdit(input: z.output<typeof previewTaskInput>): (c: SluiceConfig) => SluiceConfig {
  // Fields the draft leaves out (or lists in `inherited`) stay with the fleet defaults.
  const parsed = parseTaskDefinition(markInherited(input.task));
  if (!parsed.ok) throw CoreError.validation(parsed.errors);
  return (c) => withTask(c, parsed.value, input.mode);
}

/** What saving would change (the diff shown before apply); nothing is written. */
export async function previewTaskSave(db: Db, input: z.output<typeof previewTaskInput>): Promise<ConfigEditPreview> {
  const p = await plan(db, input.basedOn, taskEdit(input));
  return { basedOn: p.basedOn, changes: groupChangesByTask(diffConfigs(p.before, p.after)) };
}

export async function saveTask(db: Db, actor: Actor, input: z.output<typeof saveTaskInput>): Promise<AppliedEdit> {
  const p = await plan(db, input.basedOn, taskEdit(input));
  return store(db, actor, p, input.message, input.guard ? guardStep(actor, input.guard) : undefined);
}

/**
 * A task is deleted only when idle (nothing running, queued, blocked or spilled), or
 * with `drain`: then it must not be running anything (pause it and let running
 * executions finish first), and its backlog moves to the dead-letter queue right after
 * the version that removes it (enqueue and claim stop at that version).
 */
export async function deleteTask(db: Db, actor: Actor, input: z.output<typeof deleteTaskInput>): Promise<DeletedTask> {
  const [load] = await readTaskLoad(db, [input.task]);
  if (load && load.active) {
    const busy = load.inFlight > 0 || load.depth > 0 || load.spilled > 0;
    const what = `${load.inFlight} running, ${load.depth} queued or blocked, ${load.spilled} spilled`;
    if (busy && !input.drain) {
      throw new CoreError(
        'PRECONDITION_FAILED',
        `task "${input.task}" is not idle (${what}); delete it with drain to move its backlog to the dead-letter queue`,
      );
    }
    if (load.inFlight > 0) {
      throw new CoreError(
        'PRECONDITION_FAILED',
        `task "${input.task}" has ${load.inFlight} running executions; pause it and wait until they finish, then delete with drain`,
      );
    }
  }
  // The version that removes the task and the drain of its backlog commit together: a
  // drain that fails leaves the task in place, never deleted with an orphaned backlog.
  let drained: DrainedBacklog | null = null;
  const drain = input.drain
    ? async (c: pg.PoolClient, version: number) => {
        drained = await drainDeletedTask(c, actor, input.task, version);
      }
    : undefined;
  const applied = await store(db, actor, await plan(db, input.basedOn, (c) => withoutTask(c, input.task)), input.message, drain);
  return { ...applied, drained };
}

async function drainDeletedTask(c: pg.PoolClient, actor: Actor, task: string, removedIn: number): Promise<DrainedBacklog> {
  const error = `task "${task}" was deleted in config version ${removedIn} (drained by ${actor.label})`;
  const fingerprint = errorFingerprint({ name: 'TaskDeleted', message: error });
  const drained = await drainTaskBacklog(c, task, error, fingerprint);
  await recordAudit(c, actor, {
    action: 'task.drain',
    targetType: 'task',
    targetId: task,
    after: drained,
    meta: { removedInVersion: removedIn },
  });
  return drained;
}

/**
 * Pause / resume applies onto the latest version whatever the page showed: it changes
 * one field of one task, so it cannot overwrite anyone's edit. A concurrent write
 * between our read and the apply is a CONFLICT from applyConfig; we re-read and retry.
 */
export async function setTaskPaused(db: Db, actor: Actor, input: z.output<typeof pauseTaskInput>): Promise<AppliedEdit> {
  const msg = input.message || `${input.paused ? 'Pause' : 'Resume'} ${input.task}`;
  for (let attempt = 1; ; attempt++) {
    const p = await plan(db, undefined, (c) => withTaskPaused(c, input.task, input.paused));
    try {
      // Its own audit record beside config.apply: the field that changed and the version it made.
      return await store(db, actor, p, msg, async (c, v) => {
        await recordAudit(c, actor, {
          action: input.paused ? 'task.pause' : 'task.resume',
          targetType: 'task',
          targetId: input.task,
          before: { paused: !input.paused },
          after: { paused: input.paused },
          meta: { version: v, basedOn: p.basedOn },
        });
      });
    } catch (e) {
      if (!(isCoreError(e) && e.code === 'CONFLICT') || attempt >= 3) throw e;
    }
  }
}

/**
 * The rollback edit: the whole config of `to`, or with `task` only that task's definition
 * from `to` put into the current config (a per-task revert: other tasks' later edits stay).
 * A task that did not exist in `to` is not removed by a revert (deleting has its own
 * checks: idle, or drained); one that existed then and was deleted since comes back.
 */
function rollbackEdit(target: SluiceConfig, to: number, task: string | undefined): (c: SluiceConfig) => SluiceConfig {
  if (task === undefined) return () => target;
  const then = target.tasks.find((t) => t.name === task);
  if (!then) {
    throw new CoreError('PRECONDITION_FAILED', `task "${task}" did not exist in version ${to}; delete it from the task page instead`, {
      fieldErrors: [{ path: 'task', message: `did not exist in version ${to}` }],
    });
  }
  return (c) => withTask(c, then, c.tasks.some((t) => t.name === task) ? 'update' : 'create');
}

/** What rolling back to `to` (the whole config, or one task) would change, against the latest version. */
export async function previewRollback(db: Db, input: { to: number; basedOn?: number; task?: string }): Promise<ConfigEditPreview> {
  const target = await configAtVersion(db, input.to);
  const p = await plan(db, input.basedOn, rollbackEdit(target, input.to, input.task));
  return { basedOn: p.basedOn, changes: groupChangesByTask(diffConfigs(p.before, p.after)) };
}

/** A new version equal to an older one (or with one task as it was then); history is never rewritten. */
export async function rollbackConfig(db: Db, actor: Actor, input: z.output<typeof rollbackInput>): Promise<AppliedEdit> {
  const target = await configAtVersion(db, input.to);
  const p = await plan(db, input.basedOn, rollbackEdit(target, input.to, input.task));
  const msg = input.message || (input.task ? `Revert ${input.task} to version ${input.to}` : `Roll back to version ${input.to}`);
  if (!input.task) return store(db, actor, p, msg);
  return store(db, actor, p, msg, async (c, v) => {
    await recordAudit(c, actor, {
      action: 'task.revert',
      targetType: 'task',
      targetId: input.task!,
      before: { version: p.basedOn },
      after: { version: v, definitionFrom: input.to },
      meta: { version: v, revertedTo: input.to, changes: diffConfigs(p.before, p.after) },
    });
  });
}
