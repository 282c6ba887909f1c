import { describe, expect, it } from 'vitest';
import { MAX_GROUPS, effectiveGroupLimit, fairShareGroup, parseConfig, parseTaskDefinition, taskDefinitionSchema, type FieldError } from './task-definition';

const NAME_MSG = 'lowercase letters, digits, ".", "_" or "-", starting with a letter or digit, at most 63 characters';
const KEY_PATH_MSG = 'must be a dot path such as "tenant" or "customer.id"';

describe('parseTaskDefinition: valid definitions', () => {
  it.each([
    { name: 'minimal', input: { name: 'x' } },
    { name: 'digits first, dots, underscores', input: { name: '0.send_email-v2' } },
    { name: '63-character name', input: { name: 'a'.repeat(63) } },
    { name: 'boundaries', input: { name: 'x', partitions: 1024, concurrency: 1_000_000, retry: { maxAttempts: 100, jitter: 1 } } },
    { name: 'one partition', input: { name: 'x', partitions: 1 } },
    { name: 'hash with a nested key path', input: { name: 'x', routing: { strategy: 'hash', keyPath: 'customer.id' } } },
    { name: 'groups with overrides', input: { name: 'x', groups: [{ name: 'tenant', limit: 20, keyPath: 'tenant', overrides: { acme: 50, '東京': 2 } }] } },
    { name: 'eight groups', input: { name: 'x', groups: Array.from({ length: 8 }, (_, i) => ({ name: `g${i}`, limit: 1 })) } },
    { name: 'ten groups (seed 001)', input: { name: 'x', groups: Array.from({ length: 10 }, (_, i) => ({ name: `g${i}`, limit: 1 })) } },
    { name: 'sixteen groups, the most', input: { name: 'x', groups: Array.from({ length: MAX_GROUPS }, (_, i) => ({ name: `g${i}`, limit: 1 })) } },
    { name: 'maxDelay equal to base', input: { name: 'x', retry: { baseDelayMs: 5000, maxDelayMs: 5000 } } },
    { name: 'zero delays', input: { name: 'x', retry: { baseDelayMs: 0, maxDelayMs: 0, jitter: 0 } } },
    { name: 'stream with explicit keys only', input: { name: 'x', stream: {} } },
    { name: 'every policy', input: { name: 'x', backpressure: { policy: 'spill', shedPercent: 0 } } },
    { name: 'fair share by the first group, with weights', input: { name: 'x', order: 'fair', groups: [{ name: 'tenant', limit: 20, weights: { acme: 3 } }] } },
    { name: 'fair share by a named group', input: { name: 'x', order: 'fair', fairGroup: 'tenant', groups: [{ name: 'key', limit: 1 }, { name: 'tenant', limit: 20 }] } },
    { name: 'fifo said out loud', input: { name: 'x', order: 'fifo' } },
  ])('$name', ({ input }) => {
    const r = parseTaskDefinition(input);
    expect(r.ok ? [] : r.errors).toEqual([]);
  });

  it('fills defaults from seed 000', () => {
    const r = parseTaskDefinition({ name: 'x' });
    if (!r.ok) throw new Error('expected ok');
    expect(r.value).toMatchObject({
      partitions: 4,
      concurrency: 10,
      routing: { strategy: 'round-robin' },
      groups: [],
      retry: { maxAttempts: 3, backoff: 'exponential', baseDelayMs: 1000, maxDelayMs: 60_000, jitter: 0.2 },
      backpressure: { maxDepth: 10_000, policy: 'reject' },
      thresholds: {
        depth: { warning: 1000, critical: 5000 },
        imbalance: { warning: 2, critical: 5 },
        retryRate: { warning: 0.1, critical: 0.25 },
        dlqRate: { warning: 0.01, critical: 0.05 },
        p99LatencyMs: { warning: 5000, critical: 30_000 },
      },
      paused: false,
    });
  });

  it.each([
    ['absent: the evaluator default applies', {}, undefined],
    ['0: fire on the first breach seen', { alertAfterMs: 0 }, 0],
    ['15 s', { alertAfterMs: 15_000 }, 15_000],
    ['an hour, the most', { alertAfterMs: 3_600_000 }, 3_600_000],
  ])('thresholds.alertAfterMs %s', (_n, thresholds, want) => {
    const t = taskDefinitionSchema.parse({ name: 'x', thresholds });
    expect(t.thresholds.alertAfterMs).toBe(want);
    expect('alertAfterMs' in t.thresholds).toBe(want !== undefined);
    expect(t.thresholds.depth).toEqual({ warning: 1000, critical: 5000 });
  });

  it('fills the rest of a partly given object with defaults', () => {
    const t = taskDefinitionSchema.parse({ name: 'x', retry: { maxAttempts: 7 }, thresholds: { depth: { warning: 1, critical: 2 } } });
    expect(t.retry).toEqual({ maxAttempts: 7, backoff: 'exponential', baseDelayMs: 1000, maxDelayMs: 60_000, jitter: 0.2 });
    expect(t.thresholds.imbalance).toEqual({ warning: 2, critical: 5 });
  });
});

describe('parseTaskDefinition: field errors', () => {
  it.each<{ name: string; input: unknown; errors: FieldError[] }>([
    { name: 'missing name', input: {}, errors: [{ path: 'name', message: 'Invalid input: expected string, received undefined' }] },
    { name: 'uppercase and space', input: { name: 'Send Email' }, errors: [{ path: 'name', message: NAME_MSG }] },
    { name: '64-character name', input: { name: 'a'.repeat(64) }, errors: [{ path: 'name', message: NAME_MSG }] },
    { name: 'leading dash', input: { name: '-x' }, errors: [{ path: 'name', message: NAME_MSG }] },
    { name: 'zero partitions', input: { name: 'x', partitions: 0 }, errors: [{ path: 'partitions', message: 'must be at least 1' }] },
    { name: '1025 partitions', input: { name: 'x', partitions: 1025 }, errors: [{ path: 'partitions', message: 'must be at most 1024' }] },
    { name: 'fractional partitions', input: { name: 'x', partitions: 1.5 }, errors: [{ path: 'partitions', message: 'must be a whole number' }] },
    { name: 'zero concurrency', input: { name: 'x', concurrency: 0 }, errors: [{ path: 'concurrency', message: 'must be at least 1' }] },
    { name: 'concurrency as a string', input: { name: 'x', concurrency: '5' }, errors: [{ path: 'concurrency', message: 'must be a number' }] },
    { name: 'hash without key path', input: { name: 'x', routing: { strategy: 'hash' } }, errors: [{ path: 'routing.keyPath', message: 'hash routing needs a key path' }] },
    {
      name: 'unknown strategy',
      input: { name: 'x', routing: { strategy: 'sticky' } },
      errors: [{ path: 'routing.strategy', message: 'Invalid option: expected one of "round-robin"|"hash"|"random"|"least-loaded"' }],
    },
    { name: 'empty key path segment', input: { name: 'x', routing: { strategy: 'hash', keyPath: 'a..b' } }, errors: [{ path: 'routing.keyPath', message: KEY_PATH_MSG }] },
    { name: 'key path starting with a digit', input: { name: 'x', stream: { keyPath: '1abc' } }, errors: [{ path: 'stream.keyPath', message: KEY_PATH_MSG }] },
    { name: 'group name uppercase', input: { name: 'x', groups: [{ name: 'Tenant', limit: 1 }] }, errors: [{ path: 'groups.0.name', message: 'lowercase letters, digits, "_" or "-", starting with a letter' }] },
    {
      name: 'group declared twice',
      input: { name: 'x', groups: [{ name: 'tenant', limit: 1 }, { name: 'tenant', limit: 2 }] },
      errors: [{ path: 'groups.1.name', message: 'group "tenant" is declared twice' }],
    },
    { name: 'group limit 0', input: { name: 'x', groups: [{ name: 'tenant', limit: 0 }] }, errors: [{ path: 'groups.0.limit', message: 'must be at least 1' }] },
    // Limits (issue #19): fair share
    { name: 'fair share without a group', input: { name: 'x', order: 'fair' }, errors: [{ path: 'order', message: 'fair share needs a concurrency group whose keys share the task' }] },
    { name: 'order not fifo or fair', input: { name: 'x', order: 'random' }, errors: [{ path: 'order', message: 'must be "fifo" or "fair"' }] },
    {
      name: 'fair group not declared',
      input: { name: 'x', order: 'fair', fairGroup: 'tenant', groups: [{ name: 'key', limit: 1 }] },
      errors: [{ path: 'fairGroup', message: 'no group "tenant" in this task' }],
    },
    {
      name: 'weight 0',
      input: { name: 'x', groups: [{ name: 'tenant', limit: 1, weights: { acme: 0 } }] },
      errors: [{ path: 'groups.0.weights.acme', message: 'must be at least 1' }],
    },
    {
      name: 'weight fractional',
      input: { name: 'x', groups: [{ name: 'tenant', limit: 1, weights: { acme: 1.5 } }] },
      errors: [{ path: 'groups.0.weights.acme', message: 'must be a whole number' }],
    },
    {
      name: 'override 0',
      input: { name: 'x', groups: [{ name: 'tenant', limit: 1, overrides: { acme: 0 } }] },
      errors: [{ path: 'groups.0.overrides.acme', message: 'must be at least 1' }],
    },
    {
      name: 'seventeen groups',
      input: { name: 'x', groups: Array.from({ length: 17 }, (_, i) => ({ name: `g${i}`, limit: 1 })) },
      errors: [{ path: 'groups', message: 'at most 16 groups per task' }],
    },
    { name: 'maxDelay below base', input: { name: 'x', retry: { baseDelayMs: 5000, maxDelayMs: 1000 } }, errors: [{ path: 'retry.maxDelayMs', message: 'must be at least baseDelayMs' }] },
    { name: 'jitter above 1', input: { name: 'x', retry: { jitter: 1.5 } }, errors: [{ path: 'retry.jitter', message: 'must be at most 1' }] },
    { name: 'zero attempts', input: { name: 'x', retry: { maxAttempts: 0 } }, errors: [{ path: 'retry.maxAttempts', message: 'must be at least 1' }] },
    {
      name: 'unknown policy',
      input: { name: 'x', backpressure: { policy: 'drop' } },
      errors: [{ path: 'backpressure.policy', message: 'Invalid option: expected one of "reject"|"throttle"|"shed"|"spill"' }],
    },
    { name: 'shed above 100%', input: { name: 'x', backpressure: { shedPercent: 101 } }, errors: [{ path: 'backpressure.shedPercent', message: 'must be at most 100' }] },
    {
      name: 'a rate above 100%',
      input: { name: 'x', thresholds: { dlqRate: { warning: 0.5, critical: 2 } } },
      errors: [{ path: 'thresholds.dlqRate.critical', message: 'must be at most 100%' }],
    },
    {
      name: 'warning above critical',
      input: { name: 'x', thresholds: { depth: { warning: 5000, critical: 1000 } } },
      errors: [{ path: 'thresholds.depth.warning', message: 'warning must be below critical' }],
    },
    {
      name: 'warning equal to critical',
      input: { name: 'x', thresholds: { p99LatencyMs: { warning: 5, critical: 5 } } },
      errors: [{ path: 'thresholds.p99LatencyMs.warning', message: 'warning must be below critical' }],
    },
    {
      name: 'alertAfterMs below 0',
      input: { name: 'x', thresholds: { alertAfterMs: -1 } },
      errors: [{ path: 'thresholds.alertAfterMs', message: 'must be at least 0' }],
    },
    {
      name: 'alertAfterMs above an hour',
      input: { name: 'x', thresholds: { alertAfterMs: 3_600_001 } },
      errors: [{ path: 'thresholds.alertAfterMs', message: 'must be at most an hour (3600000 ms)' }],
    },
    {
      name: 'fractional alertAfterMs',
      input: { name: 'x', thresholds: { alertAfterMs: 1.5 } },
      errors: [{ path: 'thresholds.alertAfterMs', message: 'must be a whole number of ms' }],
    },
    {
      name: 'alertAfterMs as a string',
      input: { name: 'x', thresholds: { alertAfterMs: '15s' } },
      errors: [{ path: 'thresholds.alertAfterMs', message: 'Invalid input: expected number, received string' }],
    },
    {
      name: 'unknown key beside the thresholds',
      input: { name: 'x', thresholds: { forMs: 1000 } },
      errors: [{ path: 'thresholds', message: 'Unrecognized key: "forMs"' }],
    },
    {
      name: 'several independent errors are all reported',
      input: { name: 'x', partitions: 0, concurrency: 0, retry: { jitter: 2 } },
      errors: [
        { path: 'partitions', message: 'must be at least 1' },
        { path: 'concurrency', message: 'must be at least 1' },
        { path: 'retry.jitter', message: 'must be at most 1' },
      ],
    },
  ])('$name', ({ input, errors }) => {
    const r = parseTaskDefinition(input);
    expect(r.ok ? [] : r.errors).toEqual(errors);
  });
});

describe('parseConfig', () => {
  it.each<{ name: string; input: unknown; errors: FieldError[] }>([
    { name: 'null', input: null, errors: [{ path: '', message: 'Invalid input: expected object, received null' }] },
    { name: 'task declared twice', input: { tasks: [{ name: 'a' }, { name: 'a' }] }, errors: [{ path: 'tasks.1.name', message: 'task "a" is declared twice' }] },
    { name: 'nested error path', input: { tasks: [{ name: 'a' }, { name: 'b', concurrency: 0 }] }, errors: [{ path: 'tasks.1.concurrency', message: 'must be at least 1' }] },
    {
      name: 'deep nested error path',
      input: { tasks: [{ name: 'a', groups: [{ name: 'tenant', limit: 1, overrides: { acme: 1.5 } }] }] },
      errors: [{ path: 'tasks.0.groups.0.overrides.acme', message: 'must be a whole number' }],
    },
    // Limits (issue #19): rate limits, every field named
    {
      name: 'group rate interval',
      input: { tasks: [{ name: 'a', groups: [{ name: 'r', limit: 1 }, { name: 'tenant', limit: 1, rate: { limit: 5, per: 0 } }] }] },
      errors: [{ path: 'tasks.0.groups.1.rate.per', message: 'must be at least 1' }],
    },
    {
      name: 'group rate without a limit',
      input: { tasks: [{ name: 'a', groups: [{ name: 'tenant', limit: 1, rate: { per: 1000 } }] }] },
      errors: [{ path: 'tasks.0.groups.0.rate.limit', message: 'must be a number' }],
    },
    {
      name: 'rate override field',
      input: { tasks: [{ name: 'a', groups: [{ name: 'tenant', limit: 1, rate: { limit: 5, per: 1000, overrides: { acme: { burst: -1 } } } }] }] },
      errors: [{ path: 'tasks.0.groups.0.rate.overrides.acme.burst', message: 'must be at least 0' }],
    },
    {
      name: 'rate override unknown field',
      input: { tasks: [{ name: 'a', groups: [{ name: 'tenant', limit: 1, rate: { limit: 5, per: 1000, overrides: { acme: { rate: 3 } } } }] }] },
      errors: [{ path: 'tasks.0.groups.0.rate.overrides.acme', message: 'Unrecognized key: "rate"' }],
    },
    { name: 'task rate burst', input: { tasks: [{ name: 'a', rate: { limit: 5, per: 1000, burst: 1.5 } }] }, errors: [{ path: 'tasks.0.rate.burst', message: 'must be a whole number' }] },
    { name: 'cost path', input: { tasks: [{ name: 'a', rateCostPath: 'a..b' }] }, errors: [{ path: 'tasks.0.rateCostPath', message: 'must be a dot path such as "tenant" or "customer.id"' }] },
  ])('$name', ({ input, errors }) => {
    const r = parseConfig(input);
    expect(r.ok ? [] : r.errors).toEqual(errors);
  });

  it.each([
    { input: {} },
    { input: { tasks: [] } },
    { input: { tasks: [{ name: 'a' }, { name: 'b' }] } },
    { input: { tasks: [{ name: 'a', rate: { limit: 100, per: 60_000 }, rateCostPath: 'w', groups: [{ name: 't', limit: 2, rate: { limit: 5, per: 1000, burst: 2, overrides: { acme: { limit: 50 } } } }] }] } },
  ])('accepts $input', ({ input }) => {
    expect(parseConfig(input).ok).toBe(true);
  });
});

describe('effectiveGroupLimit', () => {
  const group = taskDefinitionSchema.parse({ name: 'x', groups: [{ name: 'tenant', limit: 20, overrides: { acme: 50, '東京': 2 } }] }).groups[0]!;
  it.each([
    { key: 'acme', expected: 50 },
    { key: '東京', expected: 2 },
    { key: 'globex', expected: 20 },
    { key: 'ACME', expected: 20 },
    { key: '', expected: 20 },
    // Inherited property names are not overrides.
    { key: 'constructor', expected: 20 },
    { key: 'toString', expected: 20 },
    { key: '__proto__', expected: 20 },
  ])('$key → $expected', ({ key, expected }) => {
    expect(effectiveGroupLimit(group, key)).toBe(expected);
  });

});

describe('fairShareGroup (issue #19)', () => {
  it.each([
    { name: 'fifo (absent): none', def: { groups: [{ name: 'tenant' }] }, g: null },
    { name: 'fair: the first group', def: { order: 'fair', groups: [{ name: 'tenant' }, { name: 'key' }] }, g: 'tenant' },
    { name: 'fair: the named group', def: { order: 'fair', fairGroup: 'key', groups: [{ name: 'tenant' }, { name: 'key' }] }, g: 'key' },
    { name: 'fair without groups: none', def: { order: 'fair', groups: [] }, g: null },
  ])('$name', ({ def, g }) => expect(fairShareGroup(def as Parameters<typeof fairShareGroup>[0])).toBe(g));
});
