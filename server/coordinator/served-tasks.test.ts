import { describe, expect, it } from 'vitest';
import { parseConfig, type SluiceConfig } from '../core/task-definition';
import type { HandlerMap } from './handler-runner';
import { chooseServedTasks, ServedTasks } from './served-tasks';

const config = (tasks: { name: string; partitions?: number; paused?: boolean; concurrency?: number }[]): SluiceConfig => {
  const r = parseConfig({ tasks });
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.value;
};
const noop = async () => {};

describe('chooseServedTasks', () => {
  it.each<{ handlers: HandlerMap; tasks: string[] | undefined; expected: string[] }>([
    { handlers: { b: noop, a: noop }, tasks: undefined, expected: ['a', 'b'] },
    { handlers: { b: noop, a: noop }, tasks: [], expected: ['a', 'b'] },
    { handlers: { b: noop, a: noop, c: noop }, tasks: ['c', 'a'], expected: ['a', 'c'] },
  ])('$tasks of $handlers → $expected', ({ handlers, tasks, expected }) => {
    expect(chooseServedTasks(handlers, tasks)).toEqual(expected);
  });

  it.each<{ handlers: HandlerMap; tasks: string[] | undefined; message: string }>([
    { handlers: { a: noop }, tasks: ['z'], message: '--tasks names "z", but the handlers module has no handler for it (it has: a)' },
    { handlers: {}, tasks: ['z'], message: '(it has: none)' },
    { handlers: { a: 'not a function' as unknown as HandlerMap[string] }, tasks: ['a'], message: 'the handler for "a" is not a function' },
    { handlers: {}, tasks: undefined, message: 'the handlers module serves no task' },
  ])('refuses $tasks of $handlers', ({ handlers, tasks, message }) => {
    expect(() => chooseServedTasks(handlers, tasks)).toThrow(message);
  });
});

describe('ServedTasks', () => {
  it('keeps only the served tasks of a config version; the claim loop sees the unpaused ones', () => {
    const t = new ServedTasks(['a', 'b']);
    expect(t.claimable()).toEqual([]);
    t.apply(config([{ name: 'a' }, { name: 'b', paused: true }, { name: 'other' }]));
    expect(t.has('a') && t.has('b')).toBe(true);
    expect(t.has('other')).toBe(false);
    expect(t.get('b')?.paused).toBe(true);
    expect(t.claimable().map((d) => d.name)).toEqual(['a']);
    expect(t.activeCount()).toBe(1);
  });

  it('asks for an ownership re-sync only when the served tasks or their partition counts change', () => {
    const t = new ServedTasks(['a', 'b']);
    const first = t.apply(config([{ name: 'a', partitions: 4 }]));
    expect(first).toBe('a:4');
    // not synced yet (the re-sync failed): the same version asks again
    expect(t.apply(config([{ name: 'a', partitions: 4 }]))).toBe('a:4');
    t.ownershipSynced('a:4');
    expect(t.apply(config([{ name: 'a', partitions: 4, concurrency: 99, paused: true }]))).toBeNull();
    expect(t.apply(config([{ name: 'a', partitions: 8 }]))).toBe('a:8');
    t.ownershipSynced('a:8');
    expect(t.apply(config([{ name: 'b', partitions: 2 }, { name: 'a', partitions: 8 }]))).toBe('a:8,b:2');
  });

  it('claims nothing once draining, while the active count stays', () => {
    const t = new ServedTasks(['a', 'b']);
    t.apply(config([{ name: 'a' }, { name: 'b' }]));
    expect(t.claimable()).toHaveLength(2);
    t.startDraining();
    expect(t.draining).toBe(true);
    expect(t.claimable()).toEqual([]);
    expect(t.activeCount()).toBe(2);
  });
});
