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
  return { ...base, forMs: a.forMs, clearForMs: a.clearForMs, hysteresis: a.hysteresis, hotPartition: a.hotPartition, hotKey: a.hotKey };
}

/** Validates a defaults document on its own (the Defaults page's input): field errors by path. */
export function parseFleetDefaults(input: unknown): ParseResult<FleetDefaults> {
  const r = fleetDefaultsSchema.safeParse(input);
  return r.success ? { ok: true, value: r.data } : { ok: false, errors: issueFieldErrors(r.error.issues) };
}

/** A default's source: the fleet's when it sets the path, else built-in. */
export function defaultSource(defaults: FleetDefaults | undefined, path: string): 'built-in' | 'default' {
  return readPath(defaults ?? {}, path) === undefined ? 'built-in' : 'default';
}

export interface FieldOrigin {
  path: InheritablePath | 'thresholds.alertAfterMs';
  value: unknown;
  source: ValueSource;
  /** What the field would be without the task's own value (the inherited one). */
  inheritedValue: unknown;
}

/**
 * Where each inheritable field of a parsed task comes from: `task` when the task sets it,
 * else the fleet default or built-in. `thresholds.alertAfterMs` (the task's for-duration)
 * falls back to the alert policy's forMs.
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
  const own = task.thresholds.alertAfterMs;
  out.push({
    path: 'thresholds.alertAfterMs',
    value: own ?? eff.alertPolicy.forMs,
    source: own !== undefined ? 'task' : defaultSource(defaults, 'alertPolicy.forMs'),
    inheritedValue: eff.alertPolicy.forMs,
  });
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
