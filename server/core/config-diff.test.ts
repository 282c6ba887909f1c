import { describe, expect, it } from 'vitest';
import { canonicalConfig, canonicalConfigJson, configsEqual, diffConfigs, formatChange, type ConfigChange } from './config-diff';
import { sluiceConfigSchema, type SluiceConfigInput, type TaskDefinitionInput } from './task-definition';

const cfg = (...tasks: TaskDefinitionInput[]) => sluiceConfigSchema.parse({ tasks } satisfies SluiceConfigInput);
const email = (t: Partial<TaskDefinitionInput> = {}): TaskDefinitionInput => ({
  name: 'send-email',
  groups: [
    { name: 'tenant', limit: 20, keyPath: 'tenant', overrides: { acme: 50 } },
    { name: 'message', limit: 1, keyPath: 'message.id' },
  ],
  ...t,
});
const lines = (before: ReturnType<typeof cfg>, after: ReturnType<typeof cfg>) => diffConfigs(before, after).map(formatChange);

describe('diffConfigs + formatChange', () => {
  it.each<{ name: string; before: ReturnType<typeof cfg>; after: ReturnType<typeof cfg>; expected: string[] }>([
    { name: 'identical', before: cfg(email()), after: cfg(email()), expected: [] },
    { name: 'empty → empty', before: cfg(), after: cfg(), expected: [] },
    { name: 'task added', before: cfg(), after: cfg(email()), expected: ['send-email: task added'] },
    { name: 'task removed', before: cfg(email(), { name: 'resize' }), after: cfg(email()), expected: ['resize: task removed'] },
    {
      name: 'group limit',
      before: cfg(email()),
      after: cfg(email({ groups: [{ name: 'tenant', limit: 5, keyPath: 'tenant', overrides: { acme: 50 } }, { name: 'message', limit: 1, keyPath: 'message.id' }] })),
      expected: ['send-email: groups.tenant.limit 20 → 5'],
    },
    {
      name: 'groups reordered is no change',
      before: cfg(email()),
      after: cfg(email({ groups: [{ name: 'message', limit: 1, keyPath: 'message.id' }, { name: 'tenant', limit: 20, keyPath: 'tenant', overrides: { acme: 50 } }] })),
      expected: [],
    },
    {
      name: 'group removed and one added (by name, not index)',
      before: cfg(email()),
      after: cfg(email({ groups: [{ name: 'region', limit: 3 }, { name: 'tenant', limit: 20, keyPath: 'tenant', overrides: { acme: 50 } }] })),
      expected: [
        'send-email: groups.message removed (was {"keyPath":"message.id","limit":1,"overrides":{}})',
        'send-email: groups.region added ({"limit":3,"overrides":{}})',
      ],
    },
    {
      name: 'overrides by key',
      before: cfg(email()),
      after: cfg(email({ groups: [{ name: 'tenant', limit: 20, keyPath: 'tenant', overrides: { acme: 60, 'globex-東京': 2 } }, { name: 'message', limit: 1, keyPath: 'message.id' }] })),
      expected: ['send-email: groups.tenant.overrides.acme 50 → 60', 'send-email: groups.tenant.overrides.globex-東京 added (2)'],
    },
    {
      name: 'override removed, key path removed',
      before: cfg(email()),
      after: cfg(email({ groups: [{ name: 'tenant', limit: 20 }, { name: 'message', limit: 1, keyPath: 'message.id' }] })),
      expected: ['send-email: groups.tenant.keyPath removed (was "tenant")', 'send-email: groups.tenant.overrides.acme removed (was 50)'],
    },
    {
      name: 'scalars and nested objects',
      before: cfg(email()),
      after: cfg(email({ concurrency: 25, routing: { strategy: 'hash', keyPath: 'tenant' }, retry: { maxAttempts: 5 }, paused: true })),
      expected: [
        'send-email: concurrency 10 → 25',
        'send-email: paused false → true',
        'send-email: retry.maxAttempts 3 → 5',
        'send-email: routing.keyPath added ("tenant")',
        'send-email: routing.strategy "round-robin" → "hash"',
      ],
    },
    {
      name: 'thresholds and backpressure',
      before: cfg(email()),
      after: cfg(email({ thresholds: { depth: { warning: 500, critical: 5000 } }, backpressure: { policy: 'spill' } })),
      expected: [
        'send-email: backpressure.policy "reject" → "spill"',
        'send-email: thresholds.depth.warning 1000 → 500',
      ],
    },
    {
      name: 'optional stream added, description changed',
      before: cfg(email({ description: 'old' })),
      after: cfg(email({ description: 'new', stream: { keyPath: 'order.id' } })),
      expected: ['send-email: description "old" → "new"', 'send-email: stream added ({"keyPath":"order.id"})'],
    },
    {
      name: 'tasks in name order',
      before: cfg({ name: 'zeta' }, { name: 'alpha' }),
      after: cfg({ name: 'alpha', concurrency: 2 }, { name: 'beta' }),
      expected: ['alpha: concurrency 10 → 2', 'beta: task added', 'zeta: task removed'],
    },
  ])('$name', ({ before, after, expected }) => {
    expect(lines(before, after)).toEqual(expected);
  });

  it('carries structured before/after values', () => {
    const [c] = diffConfigs(cfg(email()), cfg(email({ concurrency: 3 })));
    expect(c).toEqual({ kind: 'changed', task: 'send-email', path: 'concurrency', before: 10, after: 3 });
  });

  it('an added task carries its canonical definition', () => {
    const [c] = diffConfigs(cfg(), cfg(email()));
    expect(c?.kind).toBe('task-added');
    expect((c?.after as { groups: { name: string }[] }).groups.map((g) => g.name)).toEqual(['message', 'tenant']);
    expect(c && 'before' in c).toBe(false);
  });

  it.each<{ change: ConfigChange; expected: string }>([
    { change: { kind: 'task-added', task: 't', path: '' }, expected: 't: task added' },
    { change: { kind: 'task-removed', task: 't', path: '' }, expected: 't: task removed' },
    { change: { kind: 'changed', task: 't', path: 'a', before: 1, after: 2 }, expected: 't: a 1 → 2' },
    { change: { kind: 'changed', task: 't', path: 'a', before: null, after: 'x' }, expected: 't: a null → "x"' },
    { change: { kind: 'changed', task: 't', path: 'a', after: true }, expected: 't: a added (true)' },
    { change: { kind: 'changed', task: 't', path: 'a', before: [1, 2] }, expected: 't: a removed (was [1,2])' },
  ])('formatChange → $expected', ({ change, expected }) => {
    expect(formatChange(change)).toBe(expected);
  });
});

describe('canonicalConfig / configsEqual', () => {
  it.each([
    { name: 'same', a: cfg(email()), b: cfg(email()), equal: true },
    { name: 'tasks reordered', a: cfg(email(), { name: 'resize' }), b: cfg({ name: 'resize' }, email()), equal: true },
    {
      name: 'groups reordered',
      a: cfg(email()),
      b: cfg(email({ groups: [{ name: 'message', limit: 1, keyPath: 'message.id' }, { name: 'tenant', limit: 20, keyPath: 'tenant', overrides: { acme: 50 } }] })),
      equal: true,
    },
    {
      name: 'override key order',
      a: cfg(email({ groups: [{ name: 'tenant', limit: 1, overrides: { a: 1, b: 2 } }] })),
      b: cfg(email({ groups: [{ name: 'tenant', limit: 1, overrides: { b: 2, a: 1 } }] })),
      equal: true,
    },
    { name: 'a limit differs', a: cfg(email()), b: cfg(email({ concurrency: 11 })), equal: false },
    { name: 'a task more', a: cfg(email()), b: cfg(email(), { name: 'resize' }), equal: false },
    { name: 'explicit defaults equal omitted ones', a: cfg({ name: 'x' }), b: cfg({ name: 'x', partitions: 4, paused: false }), equal: true },
  ])('$name → $equal', ({ a, b, equal }) => {
    expect(configsEqual(a, b)).toBe(equal);
    expect(diffConfigs(a, b).length === 0).toBe(equal);
  });

  it('export → apply round-trips exactly', () => {
    const original = cfg({ name: 'zeta', stream: { keyPath: 'k' } }, email({ routing: { strategy: 'hash', keyPath: 'tenant' } }));
    const exported = canonicalConfigJson(original);
    const applied = sluiceConfigSchema.parse(JSON.parse(exported));
    expect(configsEqual(original, applied)).toBe(true);
    expect(canonicalConfigJson(applied)).toBe(exported);
  });

  it('sorts tasks, groups and keys and drops undefined', () => {
    const c = canonicalConfig(cfg({ name: 'b', description: undefined }, email()));
    expect(c.tasks.map((t) => t.name)).toEqual(['b', 'send-email']);
    expect(c.tasks[1]!.groups.map((g) => g.name)).toEqual(['message', 'tenant']);
    expect(Object.keys(c.tasks[0]!)).toEqual([...Object.keys(c.tasks[0]!)].sort());
    expect('description' in c.tasks[0]!).toBe(false);
  });
});
