// Three-level config precedence: built-in < fleet `defaults:` < task < per-key override.
// The schema and the raw fill live in task-definition.ts (its fleet-defaults block); this
// module answers the questions around them: what the defaults are in effect (built-in
// values with the fleet's on top), where a task's field comes from, the alert policy the
// evaluator runs with, and what an edit of the defaults changes.
// Pure: no I/O imports (server/core rule).
import { DEFAULT_ALERT_POLICY, type AlertPolicy } from './alert-evaluation';
import {
  fleetDefaultsSchema,
  INHERITABLE_PATHS,
  readPath,
  taskDefinitionSchema,
  type FleetDefaults,
  type InheritablePath,
  type KeyPolicy,
  type ParseResult,
  type SluiceConfig,
  type TaskDefinition,
} from './task-definition';
import { issueFieldErrors } from './errors';

/** Where an effective value comes from. */
export type ValueSource = 'built-in' | 'default' | 'task' | 'key';

/** The alert policy fields an operator may set fleet-wide (the rest stay code). */
export interface EffectiveAlertPolicy {
  forMs: number;
  clearForMs: number;
  hysteresis: number;
  hotPartition: { factor: number; floorDepth: number };
  hotKey: { dominantShare: number; floor: number };
  waitP99Ms: { warning: number; critical: number };
  /** Key-wait lines for keys without their own; null = none. */
  keyWaitMs: { warning: number; critical: number } | null;
}

export interface EffectiveDefaults {
  timeoutMs: number;
  retry: TaskDefinition['retry'];
  thresholds: Omit<TaskDefinition['thresholds'], 'alertAfterMs'>;
  alertPolicy: EffectiveAlertPolicy;
}

const BUILT_IN_TASK = taskDefinitionSchema.parse({ name: 'built-in' });

/** The values a fleet without `defaults:` runs with (the task schema's and DEFAULT_ALERT_POLICY). */
export const BUILT_IN_DEFAULTS: EffectiveDefaults = {
  timeoutMs: BUILT_IN_TASK.timeoutMs,
  retry: BUILT_IN_TASK.retry,
  thresholds: (({ alertAfterMs: _, ...lines }) => lines)(BUILT_IN_TASK.thresholds),
  alertPolicy: {
    forMs: DEFAULT_ALERT_POLICY.forMs,
    clearForMs: DEFAULT_ALERT_POLICY.clearForMs,
    hysteresis: DEFAULT_ALERT_POLICY.hysteresis,
    hotPartition: { ...DEFAULT_ALERT_POLICY.hotPartition },
    hotKey: { ...DEFAULT_ALERT_POLICY.hotKey },
    waitP99Ms: { ...DEFAULT_ALERT_POLICY.waitP99Ms },
    keyWaitMs: DEFAULT_ALERT_POLICY.keyWaitMs && { ...DEFAULT_ALERT_POLICY.keyWaitMs },
  },
};

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `base` with every defined leaf of `over` on top (objects merged, arrays and scalars replaced). */
function mergeDefined<T>(base: T, over: unknown): T {
  if (!isRecord(over) || !isRecord(base)) return over === undefined ? base : (over as T);
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) {
    if (v === undefined) continue;
    out[k] = isRecord(v) && isRecord(out[k]) ? mergeDefined(out[k], v) : v;
  }
  return out as T;
}

/** Built-in values with the fleet's on top. */
export function effectiveDefaults(defaults: FleetDefaults | undefined): EffectiveDefaults {
  return mergeDefined(structuredClone(BUILT_IN_DEFAULTS), defaults ?? {});
}

/** The evaluator's policy: the code's timing/window constants with the fleet's alert policy on top. */
export function alertPolicyOf(defaults: FleetDefaults | undefined, base: AlertPolicy = DEFAULT_ALERT_POLICY): AlertPolicy {
  const a = effectiveDefaults(defaults).alertPolicy;
  return { ...base, forMs: a.forMs, clearForMs: a.clearForMs, hysteresis: a.hysteresis, hotPartition: a.hotPartition, hotKey: a.hotKey, waitP99Ms: a.waitP99Ms, keyWaitMs: a.keyWaitMs };
}

/** The task-level alert policy fields (thresholds.*): each absent one comes from the fleet policy. */
export type TaskAlertFields = Pick<TaskDefinition['thresholds'], 'alertAfterMs' | 'clearAfterMs' | 'hysteresis' | 'waitP99Ms' | 'keyWaitMs'>;

/**
 * One task's alert policy: the evaluator's (fleet defaults over built-in) with the task's
 * own for-duration, clear-duration, hysteresis and wait lines on top where it sets them.
 */
export function taskAlertPolicy(policy: AlertPolicy, task: Partial<TaskAlertFields> | undefined): AlertPolicy {
  if (!task) return policy;
  return {
    ...policy,
    forMs: task.alertAfterMs ?? policy.forMs,
    clearForMs: task.clearAfterMs ?? policy.clearForMs,
    hysteresis: task.hysteresis ?? policy.hysteresis,
    waitP99Ms: task.waitP99Ms ?? policy.waitP99Ms,
    keyWaitMs: task.keyWaitMs ?? policy.keyWaitMs,
  };
}

// ─── Per-key policies (the third level) ───
const RETRY_FIELDS = ['maxAttempts', 'backoff', 'baseDelayMs', 'maxDelayMs', 'jitter'] as const;
type RetryField = (typeof RETRY_FIELDS)[number];

/**
 * The retry policy of an execution carrying `keys` (group name → key): per field, the
 * first group in declaration order whose key sets it, else the task's. A retry delay
 * pair that a mix of levels leaves inverted is clamped (maxDelayMs ≥ baseDelayMs).
 */
export function retryPolicyForKeys(task: Pick<TaskDefinition, 'retry' | 'groups'>, keys: Readonly<Record<string, string>> | null | undefined): TaskDefinition['retry'] {
  if (!keys) return task.retry;
  let out: TaskDefinition['retry'] | null = null;
  const set = new Set<RetryField>();
  for (const g of task.groups) {
    if (!g.keyPolicies) continue;
    const key = keys[g.name];
    if (key === undefined || !Object.hasOwn(g.keyPolicies, key)) continue;
    const r = g.keyPolicies[key]!.retry;
    if (!r) continue;
    for (const f of RETRY_FIELDS) {
      if (r[f] === undefined || set.has(f)) continue;
      out ??= { ...task.retry };
      (out as Record<RetryField, unknown>)[f] = r[f];
      set.add(f);
    }
  }
  if (!out) return task.retry;
  if (out.maxDelayMs < out.baseDelayMs) out.maxDelayMs = out.baseDelayMs;
  return out;
}

/** The key of an execution that decides its timeout: the group and key whose own timeoutMs applies. */
export interface TimeoutOrigin {
  ms: number;
  source: 'task' | 'key';
  group: string | null;
  key: string | null;
}

/**
 * The handler timeout of an execution carrying `keys` (group name → key): the timeoutMs
 * of the first group, in declaration order, whose key sets one (as retryPolicyForKeys
 * picks each retry field), else the task's (itself from the task, the fleet default or
 * built-in). Every reader of a timeout goes through this or longestTimeout: the
 * coordinator's abort of the handler, the claim's lease, the breaker's lost-probe wait
 * and the execution detail.
 */
export function timeoutOrigin(task: Pick<TaskDefinition, 'timeoutMs' | 'groups'>, keys: Readonly<Record<string, string>> | null | undefined): TimeoutOrigin {
  if (keys) {
    for (const g of task.groups) {
      if (!g.keyPolicies) continue;
      const key = keys[g.name];
      if (key === undefined || !Object.hasOwn(g.keyPolicies, key)) continue;
      const ms = g.keyPolicies[key]!.timeoutMs;
      if (ms !== undefined) return { ms, source: 'key', group: g.name, key };
    }
  }
  return { ms: task.timeoutMs, source: 'task', group: null, key: null };
}

/** The timeout in ms of an execution carrying `keys` (timeoutOrigin's value; no object when no key sets one). */
export function timeoutForKeys(task: Pick<TaskDefinition, 'timeoutMs' | 'groups'>, keys: Readonly<Record<string, string>> | null | undefined): number {
  return task.groups.some((g) => g.keyPolicies) ? timeoutOrigin(task, keys).ms : task.timeoutMs;
}

/**
 * The longest timeout any execution of the task can have (the task's and every key's own):
 * what a claim's lease covers before the rows are known (coordinator lease-deadlines),
 * and how long the breaker waits for a probe whose key it does not know yet.
 */
export function longestTimeout(task: Pick<TaskDefinition, 'timeoutMs' | 'groups'>): number {
  let ms = task.timeoutMs;
  for (const g of task.groups) for (const p of Object.values(g.keyPolicies ?? {})) if (p.timeoutMs !== undefined && p.timeoutMs > ms) ms = p.timeoutMs;
  return ms;
}

/** The alert policy fields a key may set (the rules judged per key: keyWait, hotKey). */
const KEY_ALERT_FIELDS = [
  ['alertAfterMs', 'forMs'],
  ['clearAfterMs', 'clearForMs'],
  ['hysteresis', 'hysteresis'],
] as const;

/**
 * A key's alert policy: the task's (`taskPolicy`, already the task's fields over the
 * fleet's, taskAlertPolicy) with the key's own for-duration, clear-duration and
 * hysteresis on top, field by field. `own` absent: the task's.
 */
export function keyAlertPolicy(taskPolicy: AlertPolicy, own: Pick<KeyPolicy, 'alertAfterMs' | 'clearAfterMs' | 'hysteresis'> | undefined): AlertPolicy {
  if (!own || KEY_ALERT_FIELDS.every(([f]) => own[f] === undefined)) return taskPolicy;
  return {
    ...taskPolicy,
    forMs: own.alertAfterMs ?? taskPolicy.forMs,
    clearForMs: own.clearAfterMs ?? taskPolicy.clearForMs,
    hysteresis: own.hysteresis ?? taskPolicy.hysteresis,
  };
}

/** A key's wait lines: its own, else the task's key-wait lines (thresholds.keyWaitMs, else the fleet's); null = none. */
export function keyWaitLines(taskPolicy: Pick<AlertPolicy, 'keyWaitMs'>, own: Pick<KeyPolicy, 'waitMs'> | undefined): { lines: { warning: number; critical: number }; source: 'key' | 'task' } | null {
  if (own?.waitMs) return { lines: own.waitMs, source: 'key' };
  return taskPolicy.keyWaitMs ? { lines: taskPolicy.keyWaitMs, source: 'task' } : null;
}

export type KeyPolicyPath = `retry.${RetryField}` | 'waitMs' | 'timeoutMs' | 'alertAfterMs' | 'clearAfterMs' | 'hysteresis';

/** Where a key's effective field comes from, with the value at that level. */
export interface KeyFieldOrigin {
  path: KeyPolicyPath;
  value: unknown;
  source: ValueSource;
}

/**
 * Each policy field of `key` in `group`: the key's own value, else the task's (itself
 * from the task, the fleet default or built-in, per taskFieldOrigins). `waitMs` falls
 * back to the task's key-wait lines (thresholds.keyWaitMs, else the fleet's
 * alertPolicy.keyWaitMs; null when none is set); timeoutMs to the task's timeoutMs; the
 * alert policy fields to the task's thresholds.alertAfterMs / clearAfterMs / hysteresis.
 */
export function keyFieldOrigins(
  task: TaskDefinition,
  defaults: FleetDefaults | undefined,
  group: TaskDefinition['groups'][number],
  key: string,
): KeyFieldOrigin[] {
  const own = keyPolicyOf(group, key);
  const taskOrigins = new Map(taskFieldOrigins(task, defaults).map((o) => [o.path as string, o]));
  const out: KeyFieldOrigin[] = RETRY_FIELDS.map((f) => {
    const path = `retry.${f}` as const;
    const mine = own?.retry?.[f];
    if (mine !== undefined) return { path, value: mine, source: 'key' };
    const t = taskOrigins.get(path)!;
    return { path, value: t.value, source: t.source };
  });
  // waitMs: the key's own lines, else the task's key-wait lines, else the fleet's (null: none).
  const wait = taskOrigins.get('thresholds.keyWaitMs')!;
  out.push(own?.waitMs ? { path: 'waitMs', value: own.waitMs, source: 'key' } : { path: 'waitMs', value: wait.value, source: wait.source });
  const fromTask = (path: KeyPolicyPath, taskPath: string, mine: unknown): KeyFieldOrigin => {
    if (mine !== undefined) return { path, value: mine, source: 'key' };
    const t = taskOrigins.get(taskPath)!;
    return { path, value: t.value, source: t.source };
  };
  out.push(fromTask('timeoutMs', 'timeoutMs', own?.timeoutMs));
  out.push(fromTask('alertAfterMs', 'thresholds.alertAfterMs', own?.alertAfterMs));
  out.push(fromTask('clearAfterMs', 'thresholds.clearAfterMs', own?.clearAfterMs));
  out.push(fromTask('hysteresis', 'thresholds.hysteresis', own?.hysteresis));
  return out;
}

const keyPolicyOf = (group: TaskDefinition['groups'][number], key: string) =>
  group.keyPolicies && Object.hasOwn(group.keyPolicies, key) ? group.keyPolicies[key] : undefined;

/** The keys of a task with their own wait lines: what the evaluator reads oldest waits for. */
export function keysWithWaitLines(task: Pick<TaskDefinition, 'groups'>): { group: string; key: string; lines: { warning: number; critical: number } }[] {
  const out: { group: string; key: string; lines: { warning: number; critical: number } }[] = [];
  for (const gr of task.groups) for (const [key, p] of Object.entries(gr.keyPolicies ?? {})) if (p.waitMs) out.push({ group: gr.name, key, lines: p.waitMs });
  return out;
}
// ─── end per-key policies ───

/** Validates a defaults document on its own (the Defaults page's input): field errors by path. */
export function parseFleetDefaults(input: unknown): ParseResult<FleetDefaults> {
  const r = fleetDefaultsSchema.safeParse(input);
  return r.success ? { ok: true, value: r.data } : { ok: false, errors: issueFieldErrors(r.error.issues) };
}

/** A default's source: the fleet's when it sets the path, else built-in. */
export function defaultSource(defaults: FleetDefaults | undefined, path: string): 'built-in' | 'default' {
  return readPath(defaults ?? {}, path) === undefined ? 'built-in' : 'default';
}

/** The task's alert policy fields: absent on the task = the fleet alert policy's (or built-in). */
const TASK_ALERT_FIELDS = [
  ['thresholds.alertAfterMs', 'alertAfterMs', 'forMs'],
  ['thresholds.clearAfterMs', 'clearAfterMs', 'clearForMs'],
  ['thresholds.hysteresis', 'hysteresis', 'hysteresis'],
  ['thresholds.waitP99Ms', 'waitP99Ms', 'waitP99Ms'],
  ['thresholds.keyWaitMs', 'keyWaitMs', 'keyWaitMs'],
] as const;
export type TaskAlertPath = (typeof TASK_ALERT_FIELDS)[number][0];

export interface FieldOrigin {
  path: InheritablePath | TaskAlertPath;
  value: unknown;
  source: ValueSource;
  /** What the field would be without the task's own value (the inherited one). */
  inheritedValue: unknown;
}

/**
 * Where each inheritable field of a parsed task comes from: `task` when the task sets it,
 * else the fleet default or built-in. The task's alert policy fields (thresholds.alertAfterMs,
 * clearAfterMs, hysteresis, waitP99Ms) fall back to the fleet alert policy's forMs,
 * clearForMs, hysteresis and waitP99Ms.
 */
export function taskFieldOrigins(task: TaskDefinition, defaults: FleetDefaults | undefined): FieldOrigin[] {
  const eff = effectiveDefaults(defaults);
  const inherited = new Set<string>(task.inherited ?? []);
  const out: FieldOrigin[] = INHERITABLE_PATHS.map((path) => {
    const inheritedValue = readPath(eff, path);
    return inherited.has(path)
      ? { path, value: inheritedValue, source: defaultSource(defaults, path), inheritedValue }
      : { path, value: readPath(task, path), source: 'task', inheritedValue };
  });
  for (const [path, field, policyField] of TASK_ALERT_FIELDS) {
    const own = task.thresholds[field];
    const inheritedValue = eff.alertPolicy[policyField];
    out.push({
      path,
      value: own ?? inheritedValue,
      source: own !== undefined ? 'task' : defaultSource(defaults, `alertPolicy.${policyField}`),
      inheritedValue,
    });
  }
  return out;
}

/** A per-key limit's origin in a group: the key's override, else the group's limit (task). */
export function keyLimitOrigin(group: TaskDefinition['groups'][number], key: string): { value: number; source: 'task' | 'key' } {
  return Object.hasOwn(group.overrides, key) ? { value: group.overrides[key]!, source: 'key' } : { value: group.limit, source: 'task' };
}

export interface DefaultsChange {
  path: string;
  before: unknown;
  after: unknown;
}

function leaves(o: unknown, prefix = ''): Map<string, unknown> {
  const out = new Map<string, unknown>();
  if (!isRecord(o)) return out;
  for (const [k, v] of Object.entries(o)) {
    const p = prefix ? `${prefix}.${k}` : k;
    if (isRecord(v) && !('warning' in v && 'critical' in v)) for (const [lp, lv] of leaves(v, p)) out.set(lp, lv);
    else if (v !== undefined) out.set(p, v);
  }
  return out;
}

/** What an edit of the defaults changes, leaf by leaf (threshold pairs as one leaf); sorted by path. */
export function diffDefaults(before: FleetDefaults | undefined, after: FleetDefaults | undefined): DefaultsChange[] {
  const a = leaves(before ?? {});
  const b = leaves(after ?? {});
  const paths = [...new Set([...a.keys(), ...b.keys()])].sort();
  return paths
    .filter((p) => JSON.stringify(a.get(p)) !== JSON.stringify(b.get(p)))
    .map((p) => ({ path: p, before: a.get(p), after: b.get(p) }));
}

/** The tasks of a config that take `path` from the defaults (an edit of it reaches them). */
export function tasksInheriting(config: SluiceConfig, path: string): string[] {
  return config.tasks.filter((t) => (t.inherited ?? []).some((p) => p === path || path.startsWith(`${p}.`) || p.startsWith(`${path}.`))).map((t) => t.name);
}
