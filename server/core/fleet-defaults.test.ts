import { describe, expect, it } from 'vitest';
import { alertTiming, DEFAULT_ALERT_POLICY } from './alert-evaluation';
import {
  alertPolicyOf,
  BUILT_IN_DEFAULTS,
  diffDefaults,
  effectiveDefaults,
  keyAlertPolicy,
  keyFieldOrigins,
  keyLimitOrigin,
  keyWaitLines,
  longestTimeout,
  timeoutForKeys,
  timeoutOrigin,
  keysWithWaitLines,
  parseFleetDefaults,
  retryPolicyForKeys,
  taskAlertPolicy,
  taskFieldOrigins,
  tasksInheriting,
} from './fleet-defaults';
import { parseConfig, type SluiceConfig } from './task-definition';

function config(input: unknown): SluiceConfig {
  const r = parseConfig(input);
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.value;
}

describe('three-level merge: built-in < fleet default < task < key', () => {
  const defaults = { timeoutMs: 5000, retry: { maxAttempts: 7 }, thresholds: { depth: { warning: 10, critical: 20 } } };
  const cases: { name: string; task: Record<string, unknown>; path: string; value: unknown; source: string }[] = [
    { name: 'absent → fleet default', task: {}, path: 'timeoutMs', value: 5000, source: 'default' },
    { name: 'task value wins over the default', task: { timeoutMs: 900 }, path: 'timeoutMs', value: 900, source: 'task' },
    { name: 'absent, no fleet value → built-in', task: {}, path: 'retry.baseDelayMs', value: 1000, source: 'built-in' },
    { name: 'retry field by field: default for one', task: { retry: { jitter: 0.5 } }, path: 'retry.maxAttempts', value: 7, source: 'default' },
    { name: 'retry field by field: task for another', task: { retry: { jitter: 0.5 } }, path: 'retry.jitter', value: 0.5, source: 'task' },
    { name: 'threshold pair inherited whole', task: {}, path: 'thresholds.depth', value: { warning: 10, critical: 20 }, source: 'default' },
    { name: 'threshold pair set on the task', task: { thresholds: { depth: { warning: 1, critical: 2 } } }, path: 'thresholds.depth', value: { warning: 1, critical: 2 }, source: 'task' },
    { name: 'listed as inherited → default, whatever value it carries', task: { timeoutMs: 42, inherited: ['timeoutMs'] }, path: 'timeoutMs', value: 5000, source: 'default' },
    { name: 'alertAfterMs absent → alert policy forMs (built-in)', task: {}, path: 'thresholds.alertAfterMs', value: 60_000, source: 'built-in' },
    { name: 'alertAfterMs on the task', task: { thresholds: { alertAfterMs: 0 } }, path: 'thresholds.alertAfterMs', value: 0, source: 'task' },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const cfg = config({ defaults, tasks: [{ name: 't', ...c.task }] });
      const t = cfg.tasks[0]!;
      const o = taskFieldOrigins(t, cfg.defaults).find((x) => x.path === c.path)!;
      expect(o.value).toEqual(c.value);
      expect(o.source).toBe(c.source);
      if (c.path !== 'thresholds.alertAfterMs') expect(o.value).toEqual(c.path.split('.').reduce<unknown>((v, k) => (v as Record<string, unknown>)[k], t));
    });
  }

  it('a per-key override wins over the group limit', () => {
    const t = config({ tasks: [{ name: 't', groups: [{ name: 'tenant', limit: 5, overrides: { acme: 50 } }] }] }).tasks[0]!;
    expect(keyLimitOrigin(t.groups[0]!, 'acme')).toEqual({ value: 50, source: 'key' });
    expect(keyLimitOrigin(t.groups[0]!, 'globex')).toEqual({ value: 5, source: 'task' });
  });

  it('a re-parse with new defaults moves inherited fields and leaves set ones', () => {
    const v1 = config({ defaults: { timeoutMs: 5000 }, tasks: [{ name: 'inherits' }, { name: 'sets', timeoutMs: 5000 }] });
    const v2 = config({ ...v1, defaults: { timeoutMs: 8000 } });
    expect(v2.tasks.map((t) => t.timeoutMs)).toEqual([8000, 5000]);
    expect(tasksInheriting(v2, 'timeoutMs')).toEqual(['inherits']);
    expect(tasksInheriting(v2, 'retry')).toEqual(['inherits', 'sets']);
  });

  it('a stored task without an inherited list (written before defaults existed) keeps every value', () => {
    const full = config({ tasks: [{ name: 'old' }] }).tasks[0]!;
    const { inherited: _, ...old } = full;
    const t = config({ defaults: { timeoutMs: 1 }, tasks: [old] }).tasks[0]!;
    expect(t.timeoutMs).toBe(30_000);
    expect(t.inherited).toBeUndefined();
  });

  it('cross-field checks run on the effective task (default baseDelay vs task maxDelay)', () => {
    const r = parseConfig({ defaults: { retry: { baseDelayMs: 10_000 } }, tasks: [{ name: 't', retry: { maxDelayMs: 5000 } }] });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors).toContainEqual({ path: 'tasks.0.retry.maxDelayMs', message: 'must be at least baseDelayMs' });
  });
});

describe('fleet defaults validation', () => {
  const bad: { name: string; input: unknown; path: string }[] = [
    { name: 'unknown retry field', input: { retry: { attempts: 3 } }, path: 'retry' },
    { name: 'unknown alert policy field', input: { alertPolicy: { windowMs: 1 } }, path: 'alertPolicy' },
    { name: 'timeout below 1', input: { timeoutMs: 0 }, path: 'timeoutMs' },
    { name: 'maxAttempts above 100', input: { retry: { maxAttempts: 101 } }, path: 'retry.maxAttempts' },
    { name: 'rate above 100%', input: { thresholds: { retryRate: { warning: 0.5, critical: 2 } } }, path: 'thresholds.retryRate.critical' },
    { name: 'warning not below critical', input: { thresholds: { depth: { warning: 5, critical: 5 } } }, path: 'thresholds.depth.warning' },
    { name: 'half a pair', input: { thresholds: { depth: { warning: 5 } } }, path: 'thresholds.depth.critical' },
    { name: 'hysteresis ≥ 0.9', input: { alertPolicy: { hysteresis: 0.95 } }, path: 'alertPolicy.hysteresis' },
    { name: 'for-duration above an hour', input: { alertPolicy: { forMs: 3_600_001 } }, path: 'alertPolicy.forMs' },
    { name: 'hot-partition factor below 1', input: { alertPolicy: { hotPartition: { factor: 0.5 } } }, path: 'alertPolicy.hotPartition.factor' },
    { name: 'hot-key share above 1', input: { alertPolicy: { hotKey: { dominantShare: 1.5 } } }, path: 'alertPolicy.hotKey.dominantShare' },
    { name: 'fractional floor', input: { alertPolicy: { hotKey: { floor: 1.5 } } }, path: 'alertPolicy.hotKey.floor' },
    { name: 'max delay below base delay', input: { retry: { baseDelayMs: 10, maxDelayMs: 5 } }, path: 'retry.maxDelayMs' },
    { name: 'a string for a number', input: { timeoutMs: '5000' }, path: 'timeoutMs' },
  ];
  for (const c of bad) {
    it(`rejects ${c.name}`, () => {
      const r = parseFleetDefaults(c.input);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.errors.map((e) => e.path)).toContain(c.path);
    });
  }

  it('rejects an unknown top-level field, naming it', () => {
    const r = parseFleetDefaults({ retries: 3 });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[0]!.message).toContain('"retries"');
  });

  it('rejects defaults inside a config by path, and an inherited entry that names no field', () => {
    const r = parseConfig({ defaults: { timeoutMs: -1 }, tasks: [{ name: 't', inherited: ['concurrency'] }] });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors.map((e) => e.path)).toEqual(expect.arrayContaining(['defaults.timeoutMs', 'tasks.0.inherited.11']));
  });

  it('accepts the bounds themselves and an empty document', () => {
    expect(parseFleetDefaults({}).ok).toBe(true);
    expect(
      parseFleetDefaults({
        timeoutMs: 1,
        retry: { maxAttempts: 100, jitter: 0 },
        alertPolicy: { forMs: 0, clearForMs: 3_600_000, hysteresis: 0, hotPartition: { factor: 1, floorDepth: 0 }, hotKey: { dominantShare: 1, floor: 0 } },
      }).ok,
    ).toBe(true);
  });
});

describe('effective defaults and the alert policy', () => {
  it('built-in when nothing is set', () => {
    expect(effectiveDefaults(undefined)).toEqual(BUILT_IN_DEFAULTS);
    expect(alertPolicyOf(undefined)).toEqual(DEFAULT_ALERT_POLICY);
  });

  it('fleet values on top, leaf by leaf; window and backpressure lines stay code', () => {
    const p = alertPolicyOf({ alertPolicy: { forMs: 0, hysteresis: 0.3, hotPartition: { factor: 5 } } });
    expect(p.forMs).toBe(0);
    expect(p.hysteresis).toBe(0.3);
    expect(p.hotPartition).toEqual({ factor: 5, floorDepth: DEFAULT_ALERT_POLICY.hotPartition.floorDepth });
    expect(p.clearForMs).toBe(DEFAULT_ALERT_POLICY.clearForMs);
    expect(p.windowMs).toBe(DEFAULT_ALERT_POLICY.windowMs);
    expect(BUILT_IN_DEFAULTS.alertPolicy.hotPartition.factor).toBe(DEFAULT_ALERT_POLICY.hotPartition.factor);
  });

  it('diffs leaf by leaf, threshold pairs whole', () => {
    expect(
      diffDefaults({ timeoutMs: 1, thresholds: { depth: { warning: 1, critical: 2 } } }, { thresholds: { depth: { warning: 1, critical: 3 } }, alertPolicy: { hotKey: { floor: 9 } } }),
    ).toEqual([
      { path: 'alertPolicy.hotKey.floor', before: undefined, after: 9 },
      { path: 'thresholds.depth', before: { warning: 1, critical: 2 }, after: { warning: 1, critical: 3 } },
      { path: 'timeoutMs', before: 1, after: undefined },
    ]);
    expect(diffDefaults(undefined, {})).toEqual([]);
  });
});

describe('task-level alert policy: fleet alertPolicy < task thresholds', () => {
  const fleet = { alertPolicy: { forMs: 30_000, clearForMs: 90_000, hysteresis: 0.2, waitP99Ms: { warning: 1000, critical: 2000 } } };
  const cases: { name: string; defaults: unknown; thresholds: Record<string, unknown>; path: string; value: unknown; source: string }[] = [
    { name: 'clear: built-in', defaults: undefined, thresholds: {}, path: 'thresholds.clearAfterMs', value: 120_000, source: 'built-in' },
    { name: 'clear: fleet', defaults: fleet, thresholds: {}, path: 'thresholds.clearAfterMs', value: 90_000, source: 'default' },
    { name: 'clear: task', defaults: fleet, thresholds: { clearAfterMs: 5000 }, path: 'thresholds.clearAfterMs', value: 5000, source: 'task' },
    { name: 'hysteresis: built-in', defaults: undefined, thresholds: {}, path: 'thresholds.hysteresis', value: 0.1, source: 'built-in' },
    { name: 'hysteresis: fleet', defaults: fleet, thresholds: {}, path: 'thresholds.hysteresis', value: 0.2, source: 'default' },
    { name: 'hysteresis: task 0 is a value, not absent', defaults: fleet, thresholds: { hysteresis: 0 }, path: 'thresholds.hysteresis', value: 0, source: 'task' },
    { name: 'for: fleet', defaults: fleet, thresholds: {}, path: 'thresholds.alertAfterMs', value: 30_000, source: 'default' },
    { name: 'wait lines: built-in', defaults: undefined, thresholds: {}, path: 'thresholds.waitP99Ms', value: { warning: 30_000, critical: 300_000 }, source: 'built-in' },
    { name: 'wait lines: fleet', defaults: fleet, thresholds: {}, path: 'thresholds.waitP99Ms', value: { warning: 1000, critical: 2000 }, source: 'default' },
    { name: 'wait lines: task', defaults: fleet, thresholds: { waitP99Ms: { warning: 5, critical: 6 } }, path: 'thresholds.waitP99Ms', value: { warning: 5, critical: 6 }, source: 'task' },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const cfg = config({ ...(c.defaults ? { defaults: c.defaults } : {}), tasks: [{ name: 't', thresholds: c.thresholds }] });
      const t = cfg.tasks[0]!;
      const o = taskFieldOrigins(t, cfg.defaults).find((x) => x.path === c.path)!;
      expect(o.value).toEqual(c.value);
      expect(o.source).toBe(c.source);
      // The evaluator's policy for the task agrees with what the editor shows.
      const p = taskAlertPolicy(alertPolicyOf(cfg.defaults), t.thresholds);
      const field = { 'thresholds.clearAfterMs': 'clearForMs', 'thresholds.hysteresis': 'hysteresis', 'thresholds.alertAfterMs': 'forMs', 'thresholds.waitP99Ms': 'waitP99Ms' }[c.path] as keyof typeof p;
      expect(p[field]).toEqual(c.value);
    });
  }

  it('task values that break the policy are field errors', () => {
    const bad = parseConfig({ tasks: [{ name: 't', thresholds: { hysteresis: 0.95, clearAfterMs: -1, waitP99Ms: { warning: 9, critical: 3 } } }] });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.errors.map((e) => e.path).sort()).toEqual(['tasks.0.thresholds.clearAfterMs', 'tasks.0.thresholds.hysteresis', 'tasks.0.thresholds.waitP99Ms.warning']);
  });

  it('alertTiming takes the task clear duration', () => {
    expect(alertTiming({ forMs: 1, clearForMs: 2 }, { clearAfterMs: 7 })).toEqual({ forMs: 1, clearForMs: 7 });
    expect(alertTiming({ forMs: 1, clearForMs: 2 }, {})).toEqual({ forMs: 1, clearForMs: 2 });
  });
});

describe('per-key policies: task < key, field by field', () => {
  const cfg = config({
    defaults: { retry: { maxAttempts: 4 } },
    tasks: [
      {
        name: 't',
        retry: { baseDelayMs: 500, maxDelayMs: 10_000 },
        groups: [
          { name: 'tenant', limit: 5, keyPolicies: { acme: { retry: { maxAttempts: 9, backoff: 'fixed' }, waitMs: { warning: 100, critical: 200 } }, tiny: { retry: { baseDelayMs: 5000 } } } },
          { name: 'region', limit: 5, keyPolicies: { eu: { retry: { maxAttempts: 2, jitter: 0 } }, fast: { retry: { maxDelayMs: 600 } } } },
        ],
      },
    ],
  });
  const t = cfg.tasks[0]!;
  const cases: { name: string; keys: Record<string, string> | null; want: Partial<typeof t.retry> }[] = [
    { name: 'no keys → the task', keys: null, want: { maxAttempts: 4, backoff: 'exponential', baseDelayMs: 500 } },
    { name: 'a key without a policy → the task', keys: { tenant: 'globex' }, want: { maxAttempts: 4, backoff: 'exponential' } },
    { name: 'the key sets two fields, the task the rest', keys: { tenant: 'acme' }, want: { maxAttempts: 9, backoff: 'fixed', baseDelayMs: 500, maxDelayMs: 10_000 } },
    { name: 'two keys: the first group wins a field both set, each adds its own', keys: { tenant: 'acme', region: 'eu' }, want: { maxAttempts: 9, backoff: 'fixed', jitter: 0 } },
    { name: 'second group alone', keys: { region: 'eu' }, want: { maxAttempts: 2, jitter: 0, backoff: 'exponential' } },
    { name: 'one key raises the base, another lowers the max: max is clamped up to the base', keys: { tenant: 'tiny', region: 'fast' }, want: { baseDelayMs: 5000, maxDelayMs: 5000 } },
    { name: 'a key named like a prototype property reads nothing', keys: { tenant: 'constructor' }, want: { maxAttempts: 4 } },
  ];
  for (const c of cases) it(c.name, () => expect(retryPolicyForKeys(t, c.keys)).toMatchObject(c.want));

  it('the editor origins: key, task, default, built-in', () => {
    const o = Object.fromEntries(keyFieldOrigins(t, cfg.defaults, t.groups[0]!, 'acme').map((x) => [x.path, [x.value, x.source]]));
    expect(o).toEqual({
      'retry.maxAttempts': [9, 'key'],
      'retry.backoff': ['fixed', 'key'],
      'retry.baseDelayMs': [500, 'task'],
      'retry.maxDelayMs': [10_000, 'task'],
      'retry.jitter': [0.2, 'built-in'],
      waitMs: [{ warning: 100, critical: 200 }, 'key'],
      timeoutMs: [30_000, 'built-in'],
      alertAfterMs: [60_000, 'built-in'],
      clearAfterMs: [120_000, 'built-in'],
      hysteresis: [0.1, 'built-in'],
    });
    const plain = Object.fromEntries(keyFieldOrigins(t, cfg.defaults, t.groups[0]!, 'globex').map((x) => [x.path, [x.value, x.source]]));
    expect(plain['retry.maxAttempts']).toEqual([4, 'default']);
    // No key-wait lines anywhere: none (the task's p99 wait lines are not a key's).
    expect(plain.waitMs).toEqual([null, 'built-in']);
  });

  it('keys with wait lines', () => {
    expect(keysWithWaitLines(t)).toEqual([{ group: 'tenant', key: 'acme', lines: { warning: 100, critical: 200 } }]);
  });

  it('a key policy delay pair inverted against the task is a field error naming the key', () => {
    const r = parseConfig({ tasks: [{ name: 't', retry: { baseDelayMs: 1000, maxDelayMs: 2000 }, groups: [{ name: 'g', limit: 1, keyPolicies: { k: { retry: { maxDelayMs: 10 } } } }] }] });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors).toEqual([{ path: 'tasks.0.groups.0.keyPolicies.k.retry.maxDelayMs', message: 'must be at least baseDelayMs (1000)' }]);
  });

  it('an unknown key policy field is refused', () => {
    const r = parseConfig({ tasks: [{ name: 't', groups: [{ name: 'g', limit: 1, keyPolicies: { k: { retry: { attempts: 3 } } } }] }] });
    expect(r.ok).toBe(false);
  });
});

describe('per-key timeout: fleet default < task < key', () => {
  const cfg = config({
    defaults: { timeoutMs: 8000 },
    tasks: [
      {
        name: 't',
        groups: [
          { name: 'tenant', limit: 5, keyPolicies: { slow: { timeoutMs: 120_000 }, quick: { timeoutMs: 500 }, plain: { retry: { maxAttempts: 2 } } } },
          { name: 'region', limit: 5, keyPolicies: { eu: { timeoutMs: 2000 } } },
        ],
      },
      { name: 'own', timeoutMs: 900, groups: [{ name: 'g', limit: 1 }] },
    ],
  });
  const t = cfg.tasks[0]!;
  const cases: { name: string; keys: Record<string, string> | null; want: ReturnType<typeof timeoutOrigin> }[] = [
    { name: 'no keys → the task (from the fleet default)', keys: null, want: { ms: 8000, source: 'task', group: null, key: null } },
    { name: 'a key without a policy → the task', keys: { tenant: 'globex' }, want: { ms: 8000, source: 'task', group: null, key: null } },
    { name: 'a key policy without a timeout → the task', keys: { tenant: 'plain' }, want: { ms: 8000, source: 'task', group: null, key: null } },
    { name: 'the key sets a longer one', keys: { tenant: 'slow' }, want: { ms: 120_000, source: 'key', group: 'tenant', key: 'slow' } },
    { name: 'the key sets a shorter one', keys: { tenant: 'quick' }, want: { ms: 500, source: 'key', group: 'tenant', key: 'quick' } },
    { name: 'two keys with one each: the first group in declaration order', keys: { region: 'eu', tenant: 'slow' }, want: { ms: 120_000, source: 'key', group: 'tenant', key: 'slow' } },
    { name: 'the first group\'s key sets none: the next group\'s', keys: { tenant: 'plain', region: 'eu' }, want: { ms: 2000, source: 'key', group: 'region', key: 'eu' } },
    { name: 'a key named like a prototype property', keys: { tenant: 'constructor' }, want: { ms: 8000, source: 'task', group: null, key: null } },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(timeoutOrigin(t, c.keys)).toEqual(c.want);
      expect(timeoutForKeys(t, c.keys)).toBe(c.want.ms);
    });
  }

  it('the longest timeout covers every key (what a claim leases)', () => {
    expect(longestTimeout(t)).toBe(120_000);
    expect(longestTimeout(cfg.tasks[1]!)).toBe(900);
    expect(timeoutForKeys(cfg.tasks[1]!, { g: 'x' })).toBe(900);
  });

  it('the editor origin of a key timeout: key, else the task, else the fleet default', () => {
    const origin = (task: (typeof cfg.tasks)[number], key: string) => keyFieldOrigins(task, cfg.defaults, task.groups[0]!, key).find((o) => o.path === 'timeoutMs');
    expect(origin(t, 'slow')).toEqual({ path: 'timeoutMs', value: 120_000, source: 'key' });
    expect(origin(t, 'plain')).toEqual({ path: 'timeoutMs', value: 8000, source: 'default' });
    expect(origin(cfg.tasks[1]!, 'x')).toEqual({ path: 'timeoutMs', value: 900, source: 'task' });
  });

  it.each([
    [{ timeoutMs: 0 }, 'timeoutMs', 'must be at least 1'],
    [{ timeoutMs: 1.5 }, 'timeoutMs', 'must be a whole number'],
    [{ timeoutMs: '30s' }, 'timeoutMs', 'must be a number'],
    [{ alertAfterMs: 3_600_001 }, 'alertAfterMs', 'must be at most 3600000'],
    [{ clearAfterMs: -1 }, 'clearAfterMs', 'must be at least 0'],
    [{ hysteresis: 0.95 }, 'hysteresis', 'must be at most 0.9'],
  ])('hostile key field %j is refused naming it', (policy, field, message) => {
    const r = parseConfig({ tasks: [{ name: 't', groups: [{ name: 'g', limit: 1, keyPolicies: { k: policy } }] }] });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors).toEqual([{ path: `tasks.0.groups.0.keyPolicies.k.${field}`, message }]);
  });
});

describe('per-key alert policy: fleet < task < key, field by field', () => {
  const fleet = alertPolicyOf({ alertPolicy: { forMs: 90_000, hysteresis: 0.2, keyWaitMs: { warning: 60_000, critical: 600_000 } } });
  const cases: { name: string; task: Parameters<typeof taskAlertPolicy>[1]; key: Parameters<typeof keyAlertPolicy>[1]; want: { forMs: number; clearForMs: number; hysteresis: number } }[] = [
    { name: 'nothing set below the fleet → the fleet (clear from built-in)', task: {}, key: undefined, want: { forMs: 90_000, clearForMs: 120_000, hysteresis: 0.2 } },
    { name: 'the task sets the for-duration', task: { alertAfterMs: 30_000 }, key: {}, want: { forMs: 30_000, clearForMs: 120_000, hysteresis: 0.2 } },
    { name: 'the key sets the for-duration over the task', task: { alertAfterMs: 30_000 }, key: { alertAfterMs: 0 }, want: { forMs: 0, clearForMs: 120_000, hysteresis: 0.2 } },
    { name: 'the key sets clear and hysteresis, the task the for-duration', task: { alertAfterMs: 30_000, clearAfterMs: 5000 }, key: { clearAfterMs: 1000, hysteresis: 0 }, want: { forMs: 30_000, clearForMs: 1000, hysteresis: 0 } },
    { name: 'the key sets only hysteresis', task: { hysteresis: 0.5 }, key: { hysteresis: 0.05 }, want: { forMs: 90_000, clearForMs: 120_000, hysteresis: 0.05 } },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const p = keyAlertPolicy(taskAlertPolicy(fleet, c.task), c.key);
      expect({ forMs: p.forMs, clearForMs: p.clearForMs, hysteresis: p.hysteresis }).toEqual(c.want);
    });
  }

  const lineCases: { name: string; fleet: Parameters<typeof alertPolicyOf>[0]; task: Parameters<typeof taskAlertPolicy>[1]; key: Parameters<typeof keyWaitLines>[1]; want: ReturnType<typeof keyWaitLines> }[] = [
    { name: 'no lines anywhere → none (built-in)', fleet: undefined, task: {}, key: undefined, want: null },
    { name: 'the fleet\'s key-wait lines reach a key without its own', fleet: { alertPolicy: { keyWaitMs: { warning: 1, critical: 2 } } }, task: {}, key: {}, want: { lines: { warning: 1, critical: 2 }, source: 'task' } },
    { name: 'the task\'s over the fleet\'s', fleet: { alertPolicy: { keyWaitMs: { warning: 1, critical: 2 } } }, task: { keyWaitMs: { warning: 3, critical: 4 } }, key: undefined, want: { lines: { warning: 3, critical: 4 }, source: 'task' } },
    { name: 'the key\'s own over both', fleet: { alertPolicy: { keyWaitMs: { warning: 1, critical: 2 } } }, task: { keyWaitMs: { warning: 3, critical: 4 } }, key: { waitMs: { warning: 5, critical: 6 } }, want: { lines: { warning: 5, critical: 6 }, source: 'key' } },
    { name: 'the task\'s p99 wait lines are not key-wait lines', fleet: undefined, task: { waitP99Ms: { warning: 3, critical: 4 } }, key: undefined, want: null },
  ];
  for (const c of lineCases) it(c.name, () => expect(keyWaitLines(taskAlertPolicy(alertPolicyOf(c.fleet), c.task), c.key)).toEqual(c.want));

  it('the task editor shows the task key-wait lines with their source', () => {
    const cfg = config({ defaults: { alertPolicy: { keyWaitMs: { warning: 7, critical: 8 } } }, tasks: [{ name: 'a' }, { name: 'b', thresholds: { keyWaitMs: { warning: 1, critical: 2 } } }] });
    const of = (i: number) => taskFieldOrigins(cfg.tasks[i]!, cfg.defaults).find((o) => o.path === 'thresholds.keyWaitMs');
    expect(of(0)).toMatchObject({ value: { warning: 7, critical: 8 }, source: 'default' });
    expect(of(1)).toMatchObject({ value: { warning: 1, critical: 2 }, source: 'task', inheritedValue: { warning: 7, critical: 8 } });
  });

  it('inverted key-wait lines are refused naming the field (task and fleet)', () => {
    const r = parseConfig({ defaults: { alertPolicy: { keyWaitMs: { warning: 9, critical: 3 } } }, tasks: [{ name: 't', thresholds: { keyWaitMs: { warning: 9, critical: 3 } } }] });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors.map((e) => e.path).sort()).toEqual(['defaults.alertPolicy.keyWaitMs.warning', 'tasks.0.thresholds.keyWaitMs.warning']);
  });
});
