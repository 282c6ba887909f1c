// The diff an operator reads before applying a version (and in history): the changes of
// config-diff.ts grouped by task, one row per leaf field with a human label and the
// value before → after. A whole group or task added/removed is expanded into its fields,
// so "new group region" reads as "limit: — → 3", not as a JSON blob.
// Pure: no I/O imports (server/core rule).
import { z } from 'zod';
import type { ConfigChange } from './config-diff';

export type ChangeRowKind = 'added' | 'removed' | 'changed';

export interface ChangeRow {
  /** Dot path inside the task, as config-diff reports it (`groups.tenant.limit`). */
  path: string;
  /** `Group "tenant" › limit` */
  label: string;
  kind: ChangeRowKind;
  /** Display text; null when the field did not exist on that side. */
  before: string | null;
  after: string | null;
}

export interface TaskChangeGroup {
  task: string;
  kind: 'task-added' | 'task-removed' | 'changed';
  rows: ChangeRow[];
}

/** The same shapes as zod schemas, for API output validation. */
export const changeRowSchema = z.object({
  path: z.string(),
  label: z.string(),
  kind: z.enum(['added', 'removed', 'changed']),
  before: z.string().nullable(),
  after: z.string().nullable(),
});
export const taskChangeGroupSchema = z.object({
  task: z.string(),
  kind: z.enum(['task-added', 'task-removed', 'changed']),
  rows: z.array(changeRowSchema),
});

const WORDS: Record<string, string> = {
  concurrency: 'concurrency',
  partitions: 'partitions',
  timeoutMs: 'timeout (ms)',
  paused: 'paused',
  description: 'description',
  routing: 'routing',
  strategy: 'strategy',
  keyPath: 'key path',
  stream: 'stream',
  retry: 'retry',
  maxAttempts: 'max attempts',
  backoff: 'backoff',
  baseDelayMs: 'base delay (ms)',
  maxDelayMs: 'max delay (ms)',
  jitter: 'jitter',
  backpressure: 'backpressure',
  maxDepth: 'max depth',
  policy: 'policy',
  retryAfterMs: 'retry after (ms)',
  throttleDelayMs: 'throttle delay (ms)',
  throttleMaxDelayMs: 'throttle max delay (ms)',
  shedPercent: 'shed (%)',
  dlq: 'DLQ',
  retentionDays: 'retention (days)',
  thresholds: 'thresholds',
  depth: 'depth',
  imbalance: 'imbalance',
  retryRate: 'retry rate',
  dlqRate: 'DLQ rate',
  p99LatencyMs: 'p99 latency (ms)',
  alertAfterMs: 'alert after (ms)',
  clearAfterMs: 'resolve after (ms)',
  hysteresis: 'hysteresis',
  waitP99Ms: 'p99 wait (ms)',
  keyWaitMs: 'key wait (ms)',
  waitMs: 'wait lines (ms)',
  warning: 'warning',
  critical: 'critical',
  limit: 'limit',
  overrides: 'overrides',
  // Limits (issue #19)
  order: 'claim order',
  fairGroup: 'fair share group',
  weights: 'weights',
};

const word = (seg: string) => WORDS[seg] ?? seg;
const capitalise = (s: string) => (s ? s[0]!.toUpperCase() + s.slice(1) : s);

/**
 * `groups.tenant.overrides.acme.com` → `Group "tenant" › override "acme.com"`. Group names
 * cannot contain dots (GROUP_NAME_RE) but override keys can, so everything after
 * `overrides.` is the key.
 */
export function changeLabel(path: string): string {
  const segs = path.split('.');
  if (segs[0] === 'groups' && segs.length >= 2) {
    const head = `Group "${segs[1]}"`;
    if (segs.length === 2) return head;
    if (segs[2] === 'overrides' && segs.length >= 4) return `${head} › override "${segs.slice(3).join('.')}"`;
    if (segs[2] === 'weights' && segs.length >= 4) return `${head} › weight "${segs.slice(3).join('.')}"`;
    // groups.<g>.keyPolicies.<key, dots allowed>.(retry.<field> | waitMs.<line> | timeoutMs | alert policy field)
    if (segs[2] === 'keyPolicies' && segs.length >= 4) {
      const rest = segs.slice(3).join('.');
      const m = /^(.+?)(?:\.(retry|waitMs|timeoutMs|alertAfterMs|clearAfterMs|hysteresis)(?:\.(\w+))?)?$/.exec(rest)!;
      return [`${head} › key "${m[1]}"`, ...(m[2] ? [word(m[2])] : []), ...(m[3] ? [word(m[3])] : [])].join(' › ');
    }
    return [head, ...segs.slice(2).map(word)].join(' › ');
  }
  return capitalise(segs.map(word).join(' › '));
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function formatConfigValue(v: unknown): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

/** Leaves of a value by sub-path; an empty object is no leaves, a scalar is one at "". */
function leaves(v: unknown, prefix: string, out: Map<string, unknown>): void {
  if (v === undefined) return;
  if (isPlainObject(v)) {
    for (const k of Object.keys(v).sort()) leaves(v[k], prefix ? `${prefix}.${k}` : k, out);
    return;
  }
  out.set(prefix, v);
}

function rowsFor(path: string, before: unknown, after: unknown): ChangeRow[] {
  const b = new Map<string, unknown>();
  const a = new Map<string, unknown>();
  leaves(before, path, b);
  leaves(after, path, a);
  const paths = [...new Set([...b.keys(), ...a.keys()])].sort();
  const rows: ChangeRow[] = [];
  for (const p of paths) {
    const hb = b.has(p);
    const ha = a.has(p);
    const vb = b.get(p);
    const va = a.get(p);
    if (hb && ha && JSON.stringify(vb) === JSON.stringify(va)) continue;
    rows.push({
      path: p,
      label: changeLabel(p),
      kind: hb && ha ? 'changed' : ha ? 'added' : 'removed',
      before: hb ? formatConfigValue(vb) : null,
      after: ha ? formatConfigValue(va) : null,
    });
  }
  return rows;
}

function withoutName(v: unknown): unknown {
  if (!isPlainObject(v)) return v;
  const { name: _name, ...rest } = v;
  // Groups inside a whole task arrive as an array; key them by name like the diff does.
  if (Array.isArray(rest.groups)) {
    rest.groups = Object.fromEntries(
      (rest.groups as Record<string, unknown>[]).map((g) => [String(g.name), withoutName(g)]),
    );
  }
  return rest;
}

/** Changes (ordered by task, as diffConfigs returns them) → one group per task. */
export function groupChangesByTask(changes: readonly ConfigChange[]): TaskChangeGroup[] {
  const groups: TaskChangeGroup[] = [];
  for (const c of changes) {
    let g = groups[groups.length - 1];
    if (!g || g.task !== c.task) {
      g = { task: c.task, kind: c.kind === 'changed' ? 'changed' : c.kind, rows: [] };
      groups.push(g);
    }
    if (c.kind === 'task-added') g.rows.push(...rowsFor('', undefined, withoutName(c.after)));
    else if (c.kind === 'task-removed') g.rows.push(...rowsFor('', withoutName(c.before), undefined));
    else g.rows.push(...rowsFor(c.path, c.before, c.after));
  }
  return groups;
}
