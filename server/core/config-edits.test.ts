import { describe, expect, it } from 'vitest';
import { findTask, withTask, withTaskPaused, withoutTask } from './config-edits';
import { isCoreError } from './errors';
import { sluiceConfigSchema, taskDefinitionSchema } from './task-definition';

const config = sluiceConfigSchema.parse({ tasks: [{ name: 'alpha' }, { name: 'beta', paused: true }] });
const def = (name: string, extra: object = {}) => taskDefinitionSchema.parse({ name, ...extra });

function codeOf(fn: () => unknown): string | null {
  try {
    fn();
    return null;
  } catch (e) {
    return isCoreError(e) ? e.code : 'not a CoreError';
  }
}

describe('withTask', () => {
  it.each([
    { name: 'create a new task appends it', mode: 'create' as const, task: def('gamma'), names: ['alpha', 'beta', 'gamma'] },
    { name: 'update keeps the position', mode: 'update' as const, task: def('alpha', { concurrency: 3 }), names: ['alpha', 'beta'] },
  ])('$name', ({ mode, task, names }) => {
    const next = withTask(config, task, mode);
    expect(next.tasks.map((t) => t.name)).toEqual(names);
    expect(findTask(next, task.name)).toEqual(task);
    // The input config is not mutated.
    expect(config.tasks.map((t) => t.name)).toEqual(['alpha', 'beta']);
  });

  it.each([
    { name: 'create over an existing name', mode: 'create' as const, task: def('alpha'), code: 'CONFLICT' },
    { name: 'update a task that is gone', mode: 'update' as const, task: def('zeta'), code: 'NOT_FOUND' },
  ])('$name → $code', ({ mode, task, code }) => {
    expect(codeOf(() => withTask(config, task, mode))).toBe(code);
  });

  it('a duplicate name is reported on the name field', () => {
    try {
      withTask(config, def('alpha'), 'create');
      expect.unreachable();
    } catch (e) {
      expect(isCoreError(e) && e.fieldErrors).toEqual([{ path: 'name', message: 'a task with this name already exists' }]);
    }
  });
});

describe('withoutTask', () => {
  it('removes exactly the named task', () => {
    expect(withoutTask(config, 'alpha').tasks.map((t) => t.name)).toEqual(['beta']);
  });
  it('refuses an unknown task', () => {
    expect(codeOf(() => withoutTask(config, 'nope'))).toBe('NOT_FOUND');
  });
});

describe('withTaskPaused', () => {
  it.each([
    { task: 'alpha', paused: true, code: null },
    { task: 'beta', paused: false, code: null },
    { task: 'alpha', paused: false, code: 'PRECONDITION_FAILED' },
    { task: 'beta', paused: true, code: 'PRECONDITION_FAILED' },
    { task: 'nope', paused: true, code: 'NOT_FOUND' },
  ])('$task paused=$paused → $code', ({ task, paused, code }) => {
    expect(codeOf(() => withTaskPaused(config, task, paused))).toBe(code);
    if (code === null) expect(findTask(withTaskPaused(config, task, paused), task)?.paused).toBe(paused);
  });
});
