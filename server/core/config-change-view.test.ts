import { describe, expect, it } from 'vitest';
import { changeLabel, groupChangesByTask } from './config-change-view';
import { diffConfigs } from './config-diff';
import { sluiceConfigSchema, type TaskDefinitionInput } from './task-definition';

const cfg = (...tasks: TaskDefinitionInput[]) => sluiceConfigSchema.parse({ tasks });
const email = (t: Partial<TaskDefinitionInput> = {}): TaskDefinitionInput => ({
  name: 'send-email',
  groups: [{ name: 'tenant', limit: 20, keyPath: 'tenant', overrides: { acme: 50 } }],
  ...t,
});

describe('changeLabel', () => {
  it.each([
    ['concurrency', 'Concurrency'],
    ['timeoutMs', 'Timeout (ms)'],
    ['routing.keyPath', 'Routing › key path'],
    ['thresholds.p99LatencyMs.warning', 'Thresholds › p99 latency (ms) › warning'],
    ['thresholds.alertAfterMs', 'Thresholds › alert after (ms)'],
    ['dlq.retentionDays', 'DLQ › retention (days)'],
    ['groups.tenant', 'Group "tenant"'],
    ['groups.tenant.limit', 'Group "tenant" › limit'],
    ['groups.tenant.overrides.acme', 'Group "tenant" › override "acme"'],
    // Override keys may contain dots; group names cannot.
    ['groups.tenant.overrides.acme.example.com', 'Group "tenant" › override "acme.example.com"'],
    // Limits (issue #19): fair share
    ['order', 'Claim order'],
    ['fairGroup', 'Fair share group'],
    ['groups.tenant.weights.acme', 'Group "tenant" › weight "acme"'],
    ['thresholds.clearAfterMs', 'Thresholds › resolve after (ms)'],
    ['groups.tenant.keyPolicies.acme.retry.maxAttempts', 'Group "tenant" › key "acme" › retry › max attempts'],
    ['groups.tenant.keyPolicies.acme.example.com.waitMs.critical', 'Group "tenant" › key "acme.example.com" › wait lines (ms) › critical'],
    ['groups.tenant.keyPolicies.acme.example.com', 'Group "tenant" › key "acme.example.com"'],
    ['groups.tenant.keyPolicies.acme.example.com.timeoutMs', 'Group "tenant" › key "acme.example.com" › timeout (ms)'],
    ['groups.tenant.keyPolicies.acme.alertAfterMs', 'Group "tenant" › key "acme" › alert after (ms)'],
    ['thresholds.keyWaitMs.warning', 'Thresholds › key wait (ms) › warning'],
    ['somethingNew', 'SomethingNew'],
  ])('%s → %s', (path, label) => {
    expect(changeLabel(path)).toBe(label);
  });
});

describe('groupChangesByTask', () => {
  it.each<{ name: string; before: ReturnType<typeof cfg>; after: ReturnType<typeof cfg>; expected: unknown }>([
    { name: 'nothing', before: cfg(email()), after: cfg(email()), expected: [] },
    {
      name: 'a group limit, before → after',
      before: cfg(email()),
      after: cfg(email({ groups: [{ name: 'tenant', limit: 5, keyPath: 'tenant', overrides: { acme: 50 } }] })),
      expected: [
        {
          task: 'send-email',
          kind: 'changed',
          rows: [{ path: 'groups.tenant.limit', label: 'Group "tenant" › limit', kind: 'changed', before: '20', after: '5' }],
        },
      ],
    },
    {
      name: 'an added group is expanded into its fields',
      before: cfg(email()),
      after: cfg(email({ groups: [{ name: 'tenant', limit: 20, keyPath: 'tenant', overrides: { acme: 50 } }, { name: 'region', limit: 3, overrides: { eu: 1 } }] })),
      expected: [
        {
          task: 'send-email',
          kind: 'changed',
          rows: [
            { path: 'groups.region.limit', label: 'Group "region" › limit', kind: 'added', before: null, after: '3' },
            { path: 'groups.region.overrides.eu', label: 'Group "region" › override "eu"', kind: 'added', before: null, after: '1' },
          ],
        },
      ],
    },
    {
      name: 'an alert delay set: one added field, the lines untouched',
      before: cfg(email()),
      after: cfg(email({ thresholds: { alertAfterMs: 15_000 } })),
      expected: [
        {
          task: 'send-email',
          kind: 'changed',
          rows: [{ path: 'thresholds.alertAfterMs', label: 'Thresholds › alert after (ms)', kind: 'added', before: null, after: '15000' }],
        },
      ],
    },
    {
      name: 'override removed, key path removed, strings quoted',
      before: cfg(email()),
      after: cfg(email({ groups: [{ name: 'tenant', limit: 20 }] })),
      expected: [
        {
          task: 'send-email',
          kind: 'changed',
          rows: [
            { path: 'groups.tenant.keyPath', label: 'Group "tenant" › key path', kind: 'removed', before: '"tenant"', after: null },
            { path: 'groups.tenant.overrides.acme', label: 'Group "tenant" › override "acme"', kind: 'removed', before: '50', after: null },
          ],
        },
      ],
    },
    {
      name: 'two tasks stay apart, in name order',
      before: cfg({ name: 'b' }, { name: 'a' }),
      after: cfg({ name: 'a', paused: true }, { name: 'b', concurrency: 3 }),
      expected: [
        { task: 'a', kind: 'changed', rows: [{ path: 'paused', label: 'Paused', kind: 'changed', before: 'false', after: 'true' }] },
        { task: 'b', kind: 'changed', rows: [{ path: 'concurrency', label: 'Concurrency', kind: 'changed', before: '10', after: '3' }] },
      ],
    },
  ])('$name', ({ before, after, expected }) => {
    expect(groupChangesByTask(diffConfigs(before, after))).toEqual(expected);
  });

  it('an added task lists every field as added, groups by name', () => {
    const [g] = groupChangesByTask(diffConfigs(cfg(), cfg(email())));
    expect(g?.kind).toBe('task-added');
    expect(g?.rows.every((r) => r.kind === 'added' && r.before === null)).toBe(true);
    const byPath = Object.fromEntries(g!.rows.map((r) => [r.path, r.after]));
    expect(byPath).toMatchObject({ concurrency: '10', 'groups.tenant.limit': '20', 'groups.tenant.overrides.acme': '50', 'routing.strategy': '"round-robin"' });
    expect(Object.keys(byPath)).not.toContain('name');
  });

  it('a removed task lists every field as removed', () => {
    const [g] = groupChangesByTask(diffConfigs(cfg(email()), cfg()));
    expect(g?.kind).toBe('task-removed');
    expect(g!.rows.length).toBeGreaterThan(20);
    expect(g!.rows.every((r) => r.kind === 'removed' && r.after === null)).toBe(true);
  });
});
