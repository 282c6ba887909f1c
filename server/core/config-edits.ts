// The operator's edits as functions from one config to the next: create or replace one
// task, remove one, pause or resume one. Each returns a whole new config (the unit a
// version stores) and refuses what makes no sense for the task it names, so the editor,
// the CLI and tests get the same answers. Validation of the task itself is the schema's
// (task-definition.ts); these only place an already-valid definition.
// Pure: no I/O imports (server/core rule).
import { CoreError } from './errors';
import type { SluiceConfig, TaskDefinition } from './task-definition';

export function findTask(config: SluiceConfig, name: string): TaskDefinition | undefined {
  return config.tasks.find((t) => t.name === name);
}

function requireTask(config: SluiceConfig, name: string): TaskDefinition {
  const t = findTask(config, name);
  if (!t) throw CoreError.notFound(`task "${name}"`);
  return t;
}

/**
 * `mode: 'create'` refuses a name already taken; `mode: 'update'` refuses a task that no
 * longer exists (someone deleted it meanwhile). The task keeps its place in the list.
 */
export function withTask(config: SluiceConfig, def: TaskDefinition, mode: 'create' | 'update'): SluiceConfig {
  const existing = findTask(config, def.name);
  if (mode === 'create' && existing) {
    throw new CoreError('CONFLICT', `a task named "${def.name}" already exists`, {
      fieldErrors: [{ path: 'name', message: 'a task with this name already exists' }],
    });
  }
  if (mode === 'update' && !existing) throw CoreError.notFound(`task "${def.name}"`);
  const tasks = existing ? config.tasks.map((t) => (t.name === def.name ? def : t)) : [...config.tasks, def];
  return { ...config, tasks };
}

export function withoutTask(config: SluiceConfig, name: string): SluiceConfig {
  requireTask(config, name);
  return { ...config, tasks: config.tasks.filter((t) => t.name !== name) };
}

/** Refuses a no-op (already paused / already running) so no empty version is created. */
export function withTaskPaused(config: SluiceConfig, name: string, paused: boolean): SluiceConfig {
  const t = requireTask(config, name);
  if (t.paused === paused) {
    throw new CoreError('PRECONDITION_FAILED', `task "${name}" is already ${paused ? 'paused' : 'running'}`);
  }
  return withTask(config, { ...t, paused }, 'update');
}
