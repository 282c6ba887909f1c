// What changes between two config versions, in operator terms: tasks matched by name,
// groups by name (not array index), overrides by key, so reordering groups is no change
// and `send-email: groups.tenant.limit 20 → 5` is one line. Also the canonical form used
// to compare configs and to export them so that export → apply round-trips exactly.
// Pure: no I/O imports (server/core rule).
import type { GroupDefinition, SluiceConfig, TaskDefinition } from './task-definition';

export interface ConfigChange {
  kind: 'task-added' | 'task-removed' | 'changed';
  task: string;
  /** Dot path inside the task ("" for task-added/removed), e.g. "groups.tenant.overrides.acme". */
  path: string;
  /** Absent when the path did not exist before (an added group, override or optional field). */
  before?: unknown;
  /** Absent when the path no longer exists. */
  after?: unknown;
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Sorted keys all the way down, `undefined` members dropped (JSON has none). */
function canonicalValue(v: unknown): Json | undefined {
  if (v === undefined || typeof v === 'function' || typeof v === 'symbol') return undefined;
  if (v === null || typeof v === 'boolean' || typeof v === 'string') return v;
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'bigint') return v.toString();
  if (Array.isArray(v)) return v.map((x) => canonicalValue(x) ?? null);
  if (isPlainObject(v)) {
    const out: { [k: string]: Json } = {};
    for (const k of Object.keys(v).sort()) {
      const c = canonicalValue(v[k]);
      if (c !== undefined) out[k] = c;
    }
    return out;
  }
  return String(v);
}

const byName = <T extends { name: string }>(a: T, b: T) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * The canonical form of a config: tasks sorted by name, groups sorted by name, every
 * object's keys sorted, undefined members dropped. Two configs that mean the same thing
 * have identical canonical forms (and identical JSON.stringify of them).
 */
export function canonicalConfig(c: SluiceConfig): SluiceConfig {
  const tasks = [...c.tasks].sort(byName).map((t) => ({ ...t, groups: [...t.groups].sort(byName) }));
  return canonicalValue({ ...c, tasks }) as unknown as SluiceConfig;
}

export function canonicalConfigJson(c: SluiceConfig): string {
  return JSON.stringify(canonicalConfig(c));
}

export function configsEqual(a: SluiceConfig, b: SluiceConfig): boolean {
  return canonicalConfigJson(a) === canonicalConfigJson(b);
}

const sameJson = (a: unknown, b: unknown) => JSON.stringify(canonicalValue(a)) === JSON.stringify(canonicalValue(b));

/** Recursive diff of two values; objects by key, arrays and leaves as whole values. */
function diffValue(task: string, path: string, before: unknown, after: unknown, out: ConfigChange[]): void {
  if (before === undefined && after === undefined) return;
  if (isPlainObject(before) && isPlainObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    for (const k of keys) diffValue(task, path ? `${path}.${k}` : k, before[k], after[k], out);
    return;
  }
  if (sameJson(before, after)) return;
  const change: ConfigChange = { kind: 'changed', task, path };
  if (before !== undefined) change.before = canonicalValue(before);
  if (after !== undefined) change.after = canonicalValue(after);
  out.push(change);
}

function diffGroups(task: string, before: readonly GroupDefinition[], after: readonly GroupDefinition[], out: ConfigChange[]): void {
  const b = new Map(before.map((g) => [g.name, g]));
  const a = new Map(after.map((g) => [g.name, g]));
  const names = [...new Set([...b.keys(), ...a.keys()])].sort();
  for (const name of names) {
    const gb = b.get(name);
    const ga = a.get(name);
    const path = `groups.${name}`;
    if (!gb || !ga) {
      // A whole group added or removed is one change, not one per field.
      const change: ConfigChange = { kind: 'changed', task, path };
      if (gb) change.before = canonicalValue({ ...gb, name: undefined });
      if (ga) change.after = canonicalValue({ ...ga, name: undefined });
      out.push(change);
      continue;
    }
    const { name: _nb, ...restB } = gb;
    const { name: _na, ...restA } = ga;
    diffValue(task, path, restB, restA, out);
  }
}

function diffTask(before: TaskDefinition, after: TaskDefinition, out: ConfigChange[]): void {
  const { groups: gb, name, ...restB } = before;
  const { groups: ga, name: _n, ...restA } = after;
  const changes: ConfigChange[] = [];
  diffValue(name, '', restB, restA, changes);
  diffGroups(name, gb, ga, changes);
  // One order for everything: by path, so groups sit where they would alphabetically.
  changes.sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0));
  out.push(...changes);
}

/**
 * Every change from `before` to `after`, ordered by task name then path. Added and
 * removed tasks are one change each, carrying the whole (canonical) definition.
 */
export function diffConfigs(before: SluiceConfig, after: SluiceConfig): ConfigChange[] {
  const b = new Map(before.tasks.map((t) => [t.name, t]));
  const a = new Map(after.tasks.map((t) => [t.name, t]));
  const names = [...new Set([...b.keys(), ...a.keys()])].sort();
  const out: ConfigChange[] = [];
  for (const name of names) {
    const tb = b.get(name);
    const ta = a.get(name);
    if (tb && ta) diffTask(tb, ta, out);
    else if (ta) out.push({ kind: 'task-added', task: name, path: '', after: canonicalValue({ ...ta, groups: [...ta.groups].sort(byName) }) });
    else if (tb) out.push({ kind: 'task-removed', task: name, path: '', before: canonicalValue({ ...tb, groups: [...tb.groups].sort(byName) }) });
  }
  return out;
}

function formatValue(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (v === undefined) return '(none)';
  return JSON.stringify(v);
}

/**
 * One line per change:
 *   send-email: task added
 *   send-email: groups.tenant.limit 20 → 5
 *   send-email: groups.tenant.overrides.acme added (50)
 *   send-email: routing.keyPath removed (was "tenant")
 */
export function formatChange(c: ConfigChange): string {
  switch (c.kind) {
    case 'task-added':
      return `${c.task}: task added`;
    case 'task-removed':
      return `${c.task}: task removed`;
    case 'changed': {
      const hasBefore = 'before' in c && c.before !== undefined;
      const hasAfter = 'after' in c && c.after !== undefined;
      if (!hasBefore) return `${c.task}: ${c.path} added (${formatValue(c.after)})`;
      if (!hasAfter) return `${c.task}: ${c.path} removed (was ${formatValue(c.before)})`;
      return `${c.task}: ${c.path} ${formatValue(c.before)} → ${formatValue(c.after)}`;
    }
  }
}
