// The task editor's form state and its two conversions: a stored definition → form
// (overrides become rows with stable ids so a key can be renamed in place; optional
// strings and the optional alert hold become ''), and form → the schema's input (the
// reverse). Validation is the
// shared zod schema (server/core/task-definition.ts), run on every change, plus the
// checks that must show as the operator types even while another field is invalid (the
// schema's cross-field checks only run once every field parses): an override key given
// twice, an empty key, a group name given twice. Messages follow the schema's style: a
// lowercase phrase read after the field's label, saying what the value must be.
import {
  groupSchema,
  rateOverrideSchema,
  INHERITABLE_PATHS,
  readPath,
  taskDefinitionSchema,
  type InheritablePath,
  type TaskDefinition,
  type TaskDefinitionInput,
  type FieldError,
  type KeyPolicy,
} from '@/server/core/task-definition';
import type { ThresholdMetric } from '@/server/core/thresholds';
import { DEFAULT_TASK_PRIORITY, taskPriority } from '@/server/core/priority';

export interface OverrideRow {
  uid: string;
  key: string;
  limit: number;
}

/** A group key's own policy (the per-key precedence level) as typed: '' = not set, the task's applies. */
export interface KeyPolicyRow {
  uid: string;
  key: string;
  maxAttempts: string;
  backoff: '' | TaskDefinition['retry']['backoff'];
  baseDelayMs: string;
  maxDelayMs: string;
  jitter: string;
  waitWarning: string;
  waitCritical: string;
  /** The key's own timeout and alert policy (for-duration, clear-duration, hysteresis). */
  timeoutMs: string;
  alertAfterMs: string;
  clearAfterMs: string;
  hysteresis: string;
}
/** The key fields outside `retry` and the wait pair, each a number at the policy's top level. */
export const KEY_POLICY_OWN_NUMBERS = ['timeoutMs', 'alertAfterMs', 'clearAfterMs', 'hysteresis'] as const;
export const KEY_POLICY_NUMBERS = ['maxAttempts', 'baseDelayMs', 'maxDelayMs', 'jitter'] as const;
// ---- Limits (issue #19): rate limits (server/core/rate-limit.ts) ----
/** A rate as edited: `enabled` false = the block is absent. */
export interface RateForm {
  enabled: boolean;
  limit: number;
  per: number;
  burst: number;
}
/** A per-key rate override: each field as typed, '' = the group's value. */
export interface RateOverrideRow {
  uid: string;
  key: string;
  limit: string;
  per: string;
  burst: string;
}
export interface GroupRateForm extends RateForm {
  overrides: RateOverrideRow[];
}
const DEFAULT_RATE: RateForm = { enabled: false, limit: 10, per: 1000, burst: 0 };

export interface GroupForm {
  uid: string;
  name: string;
  limit: number;
  keyPath: string;
  overrides: OverrideRow[];
  /** Limits (issue #19): fair-share weights as typed, `acme=3, globex=2` ('' = every key weighs 1). */
  weights: string;
  keyPolicies: KeyPolicyRow[];
  /** Limits (issue #19): the group's rate per key. */
  rate: GroupRateForm;
}

/** A new group's rate: off, with a starting point shown once it is turned on. */
export const newGroupRate = (): GroupRateForm => ({ ...DEFAULT_RATE, overrides: [] });

export interface TaskForm {
  name: string;
  description: string;
  concurrency: number;
  partitions: number;
  timeoutMs: number;
  paused: boolean;
  routing: { strategy: TaskDefinition['routing']['strategy']; keyPath: string };
  streamKeyPath: string;
  groups: GroupForm[];
  retry: TaskDefinition['retry'];
  backpressure: TaskDefinition['backpressure'];
  dlq: TaskDefinition['dlq'];
  /** The warning/critical lines; thresholds.alertAfterMs is `alertAfterMs` below. */
  thresholds: Pick<TaskDefinition['thresholds'], ThresholdMetric>;
  /** thresholds.alertAfterMs as typed: '' = absent (the alert evaluator's default hold). */
  alertAfterMs: string;
  /** The task's own alert policy as typed ('' = the fleet's): thresholds.clearAfterMs,
   *  thresholds.hysteresis, the thresholds.waitP99Ms pair and the thresholds.keyWaitMs pair
   *  (key-wait lines for every group key without its own). */
  alertPolicy: { clearAfterMs: string; hysteresis: string; waitWarning: string; waitCritical: string; keyWaitWarning: string; keyWaitCritical: string };
  // ---- Limits (issue #19): priorities ----
  /** priority.default and priority.agingMs (server/core/priority.ts); `priorityExplicit`:
   *  the definition had the block, so it is written back even at the defaults. */
  priority: { default: number; agingMs: number };
  priorityExplicit: boolean;
  /** Fair share (server/core/fair-share.ts): 'fifo' or 'fair'; `orderExplicit`: the
   *  definition had `order`, so it is written back even as fifo. fairGroup '' = first group. */
  order: 'fifo' | 'fair';
  orderExplicit: boolean;
  fairGroup: string;
  /** The task's own rate (`rate`), and `rateCostPath` as typed ('' = every execution costs 1). */
  rate: RateForm;
  rateCostPath: string;
  /** Issue 23: the circuit breaker (staged backpressure rides in backpressure.stages). */
  circuitBreaker: TaskDefinition['circuitBreaker'];
  /** Fleet defaults: the fields this task takes from the config's `defaults:` (block at the end). */
  inherited: InheritablePath[];
}

let counter = 0;
export const newUid = (prefix: string) => `${prefix}${++counter}`;

const text = (v: number | undefined) => (v === undefined ? '' : String(v));

export function keyPolicyRow(key: string, p: KeyPolicy | undefined): KeyPolicyRow {
  return {
    uid: newUid('k'),
    key,
    maxAttempts: text(p?.retry?.maxAttempts),
    backoff: p?.retry?.backoff ?? '',
    baseDelayMs: text(p?.retry?.baseDelayMs),
    maxDelayMs: text(p?.retry?.maxDelayMs),
    jitter: text(p?.retry?.jitter),
    waitWarning: text(p?.waitMs?.warning),
    waitCritical: text(p?.waitMs?.critical),
    timeoutMs: text(p?.timeoutMs),
    alertAfterMs: text(p?.alertAfterMs),
    clearAfterMs: text(p?.clearAfterMs),
    hysteresis: text(p?.hysteresis),
  };
}

export function formFromDefinition(d: TaskDefinition): TaskForm {
  const { alertAfterMs, clearAfterMs, hysteresis, waitP99Ms, keyWaitMs, ...lines } = d.thresholds;
  return {
    name: d.name,
    description: d.description ?? '',
    concurrency: d.concurrency,
    partitions: d.partitions,
    timeoutMs: d.timeoutMs,
    paused: d.paused,
    routing: { strategy: d.routing.strategy, keyPath: d.routing.keyPath ?? '' },
    streamKeyPath: d.stream?.keyPath ?? '',
    groups: d.groups.map((g) => ({
      uid: newUid('g'),
      name: g.name,
      limit: g.limit,
      keyPath: g.keyPath ?? '',
      overrides: Object.entries(g.overrides).map(([key, limit]) => ({ uid: newUid('o'), key, limit })),
      weights: formatWeights(g.weights),
      keyPolicies: Object.entries(g.keyPolicies ?? {}).map(([key, p]) => keyPolicyRow(key, p)),
      // Limits (issue #19)
      rate: g.rate
        ? {
            enabled: true,
            limit: g.rate.limit,
            per: g.rate.per,
            burst: g.rate.burst,
            overrides: Object.entries(g.rate.overrides).map(([key, o]) => ({
              uid: newUid('r'),
              key,
              limit: o.limit === undefined ? '' : String(o.limit),
              per: o.per === undefined ? '' : String(o.per),
              burst: o.burst === undefined ? '' : String(o.burst),
            })),
          }
        : newGroupRate(),
    })),
    retry: { ...d.retry },
    backpressure: { ...d.backpressure, ...(d.backpressure.stages ? { stages: { ...d.backpressure.stages } } : {}) },
    dlq: { ...d.dlq },
    thresholds: structuredClone(lines),
    alertAfterMs: alertAfterMs === undefined ? '' : String(alertAfterMs),
    alertPolicy: { clearAfterMs: text(clearAfterMs), hysteresis: text(hysteresis), waitWarning: text(waitP99Ms?.warning), waitCritical: text(waitP99Ms?.critical), keyWaitWarning: text(keyWaitMs?.warning), keyWaitCritical: text(keyWaitMs?.critical) },
    // Limits (issue #19)
    priority: taskPriority(d.priority),
    priorityExplicit: d.priority !== undefined,
    order: d.order ?? 'fifo',
    orderExplicit: d.order !== undefined,
    fairGroup: d.fairGroup ?? '',
    rate: d.rate ? { enabled: true, ...d.rate } : { ...DEFAULT_RATE },
    rateCostPath: d.rateCostPath ?? '',
    circuitBreaker: { ...d.circuitBreaker },
    inherited: [...(d.inherited ?? [])],
  };
}

/** A new task: the schema's defaults with an empty name, inheriting every field it can. */
export function emptyForm(): TaskForm {
  return { ...formFromDefinition(taskDefinitionSchema.parse({ name: 'x' })), name: '', inherited: [...INHERITABLE_PATHS] };
}

const optional = (s: string) => (s.trim() === '' ? undefined : s.trim());
/** '' → absent; anything else a number (text that is not one stays NaN for the schema to name). */
const optionalNumber = (s: string) => (s.trim() === '' ? undefined : Number(s.trim()));
/** A pair typed as two texts: absent when both are empty. */
const optionalPair = (w: string, c: string) =>
  w.trim() === '' && c.trim() === '' ? undefined : { warning: optionalNumber(w) ?? NaN, critical: optionalNumber(c) ?? NaN };

function keyPolicyInput(r: KeyPolicyRow): KeyPolicy {
  const retry = Object.fromEntries(
    [
      ...KEY_POLICY_NUMBERS.map((k) => [k, optionalNumber(r[k])] as const),
      ['backoff', r.backoff === '' ? undefined : r.backoff] as const,
    ].filter(([, v]) => v !== undefined),
  );
  const waitMs = optionalPair(r.waitWarning, r.waitCritical);
  const own = Object.fromEntries(KEY_POLICY_OWN_NUMBERS.map((k) => [k, optionalNumber(r[k])] as const).filter(([, v]) => v !== undefined));
  return { ...(Object.keys(retry).length ? { retry } : {}), ...(waitMs ? { waitMs } : {}), ...own };
}

export function formToInput(f: TaskForm): TaskDefinitionInput {
  const stream = optional(f.streamKeyPath);
  // Text that is not a number stays NaN, so the schema reports it ("enter a number").
  const alertAfter = optional(f.alertAfterMs);
  return {
    name: f.name.trim(),
    description: optional(f.description),
    concurrency: f.concurrency,
    partitions: f.partitions,
    timeoutMs: f.timeoutMs,
    paused: f.paused,
    routing: { strategy: f.routing.strategy, keyPath: optional(f.routing.keyPath) },
    stream: stream ? { keyPath: stream } : undefined,
    groups: f.groups.map((g) => ({
      name: g.name.trim(),
      limit: g.limit,
      keyPath: optional(g.keyPath),
      overrides: Object.fromEntries(g.overrides.map((o) => [o.key, o.limit])),
      ...(g.weights.trim() ? { weights: parseWeights(g.weights).weights } : {}),
      ...(g.keyPolicies.length ? { keyPolicies: Object.fromEntries(g.keyPolicies.map((r) => [r.key, keyPolicyInput(r)])) } : {}),
      ...(g.rate.enabled
        ? { rate: { limit: g.rate.limit, per: g.rate.per, burst: g.rate.burst, overrides: Object.fromEntries(g.rate.overrides.map((o) => [o.key, rateOverrideInput(o)])) } }
        : {}),
    })),
    retry: f.retry,
    backpressure: f.backpressure,
    dlq: f.dlq,
    thresholds: {
      ...f.thresholds,
      ...(alertAfter === undefined ? {} : { alertAfterMs: Number(alertAfter) }),
      clearAfterMs: optionalNumber(f.alertPolicy.clearAfterMs),
      hysteresis: optionalNumber(f.alertPolicy.hysteresis),
      waitP99Ms: optionalPair(f.alertPolicy.waitWarning, f.alertPolicy.waitCritical),
      keyWaitMs: optionalPair(f.alertPolicy.keyWaitWarning, f.alertPolicy.keyWaitCritical),
    },
    // Limits (issue #19): the block only when the task had it or it differs from the defaults
    ...(f.priorityExplicit || f.priority.default !== DEFAULT_TASK_PRIORITY.default || f.priority.agingMs !== DEFAULT_TASK_PRIORITY.agingMs
      ? { priority: { default: f.priority.default, agingMs: f.priority.agingMs } }
      : {}),
    ...(f.orderExplicit || f.order !== 'fifo' ? { order: f.order } : {}),
    ...(optional(f.fairGroup) ? { fairGroup: optional(f.fairGroup) } : {}),
    ...(f.rate.enabled ? { rate: { limit: f.rate.limit, per: f.rate.per, burst: f.rate.burst } } : {}),
    ...(optional(f.rateCostPath) ? { rateCostPath: optional(f.rateCostPath) } : {}),
    circuitBreaker: f.circuitBreaker,
    ...(f.inherited.length ? { inherited: [...f.inherited] } : {}),
  };
}

// Limits (issue #19): weights as one line per group, `key=weight` pairs split by commas.
export function formatWeights(w: Record<string, number> | undefined): string {
  return Object.entries(w ?? {})
    .map(([k, n]) => `${k}=${n}`)
    .join(', ');
}

/** The weights typed for a group; `bad`: the first piece that is not `key=number`. A value
 *  that is not a number stays NaN, so the schema names the key ("must be a number"). */
export function parseWeights(text: string): { weights: Record<string, number>; bad: string | null } {
  const weights: Record<string, number> = {};
  let bad: string | null = null;
  for (const piece of text.split(',').map((p) => p.trim()).filter(Boolean)) {
    const at = piece.lastIndexOf('=');
    const key = at > 0 ? piece.slice(0, at).trim() : '';
    if (!key || Object.hasOwn(weights, key)) {
      bad ??= piece;
      continue;
    }
    const v = piece.slice(at + 1).trim();
    weights[key] = v === '' ? NaN : Number(v);
  }
  return { weights, bad };
}

/** A rate override row → the schema's input: '' fields left out (the group's), other text as a number (NaN if it is not one, so the schema says so). */
function rateOverrideInput(o: RateOverrideRow): { limit?: number; per?: number; burst?: number } {
  const num = (t: string) => (t.trim() === '' ? undefined : Number(t.trim()));
  const out: { limit?: number; per?: number; burst?: number } = {};
  for (const k of ['limit', 'per', 'burst'] as const) {
    const v = num(o[k]);
    if (v !== undefined) out[k] = v;
  }
  return out;
}

export type ErrorMap = Record<string, string>;

/** A number input left empty or unparsable holds NaN; say so plainly. */
function readable(message: string): string {
  return /received NaN/.test(message) ? 'must be a number' : message;
}

/**
 * The key column of a per-key table (overrides, rate overrides, key policies), row by row:
 * the schema sees a record, where an empty or duplicated key hides a row. `what`: whose key
 * ("limit", "rate", "policy"); `dup`: what the earlier row is ("an override", …).
 */
function checkKeyRows(rows: readonly { uid: string; key: string }[], prefix: string, what: string, dup: string, add: (e: FieldError) => void): void {
  const seen = new Set<string>();
  for (const r of rows) {
    const at = `${prefix}.#${r.uid}.key`;
    if (r.key.trim() === '') add({ path: at, message: `must not be empty (the key this ${what} is for)` });
    else if (r.key.length > 200) add({ path: at, message: 'must be at most 200 characters' });
    else if (seen.has(r.key)) add({ path: at, message: `must be unique: "${r.key}" has ${dup} already` });
    seen.add(r.key);
  }
}

/**
 * Field errors keyed by form path. Override errors are keyed by row
 * (`groups.0.overrides.#<uid>`), since the schema reports them by key and a key may be
 * empty or duplicated while the operator types.
 */
export function validateForm(f: TaskForm): ErrorMap {
  const out: ErrorMap = {};
  const add = (e: FieldError) => {
    out[e.path] ??= readable(e.message);
  };
  // Group names as typed: the schema's "declared twice" runs only once every field parses.
  const names = new Set<string>();
  f.groups.forEach((g, gi) => {
    const name = g.name.trim();
    if (name !== '' && names.has(name)) add({ path: `groups.${gi}.name`, message: `group "${name}" is declared twice` });
    names.add(name);
  });
  // Overrides row by row (the schema sees a record, where a duplicate key hides a row).
  f.groups.forEach((g, gi) => {
    checkKeyRows(g.overrides, `groups.${gi}.overrides`, 'limit', 'an override', add);
    for (const o of g.overrides) {
      const at = `groups.${gi}.overrides.#${o.uid}`;
      const limit = groupSchema.shape.limit.safeParse(o.limit);
      if (!limit.success) add({ path: `${at}.limit`, message: limit.error.issues[0]!.message });
    }
    // Limits (issue #19): rate overrides row by row, the same way
    if (!g.rate.enabled) return;
    checkKeyRows(g.rate.overrides, `groups.${gi}.rate.overrides`, 'rate', 'a rate override', add);
    for (const o of g.rate.overrides) {
      const at = `groups.${gi}.rate.overrides.#${o.uid}`;
      const r = rateOverrideSchema.safeParse(rateOverrideInput(o));
      if (!r.success) for (const issue of r.error.issues) add({ path: `${at}.${issue.path.map(String).join('.')}`, message: issue.message });
    }
  });
  // Key policies row by row, the same way (a key given twice would hide a row).
  f.groups.forEach((g, gi) => checkKeyRows(g.keyPolicies, `groups.${gi}.keyPolicies`, 'policy', 'a policy', add));
  // Weights as typed: a piece that is not key=weight, or a key given twice.
  f.groups.forEach((g, gi) => {
    const { bad } = parseWeights(g.weights);
    if (bad !== null) add({ path: `groups.${gi}.weights`, message: `write key=weight pairs separated by commas, each key once ("${bad}")` });
  });
  const r = taskDefinitionSchema.safeParse(formToInput(f));
  if (!r.success) {
    for (const issue of r.error.issues) {
      // groups.<i>.overrides.<key>: already reported per row above.
      if (issue.path[0] === 'groups' && issue.path[2] === 'overrides') continue;
      // groups.<i>.weights.<key>: shown on the group's one weights field, naming the key
      if (issue.path[0] === 'groups' && issue.path[2] === 'weights' && issue.path.length > 3) {
        add({ path: `groups.${String(issue.path[1])}.weights`, message: `${String(issue.path[3])}: ${readable(issue.message)}` });
        continue;
      }
      // groups.<i>.rate.overrides.<key>: likewise (issue #19).
      if (issue.path[0] === 'groups' && issue.path[2] === 'rate' && issue.path[3] === 'overrides') continue;
      add({ path: keyPolicyPath(f, issue.path.map(String).join('.')), message: issue.message });
    }
  }
  return out;
}

/** groups.<i>.keyPolicies.<key>.<field…> → the row's path (`…keyPolicies.#<uid>.<field>`), the
 *  pair's two lines as waitWarning / waitCritical; any other path unchanged. */
function keyPolicyPath(f: TaskForm, path: string): string {
  const m = /^groups\.(\d+)\.keyPolicies\.(.+?)\.(retry\.(\w+)|waitMs(?:\.(warning|critical))?|(timeoutMs|alertAfterMs|clearAfterMs|hysteresis))$/.exec(path);
  const row = m ? f.groups[Number(m[1])]?.keyPolicies.find((r) => r.key === m[2]) : undefined;
  if (!m || !row) return path;
  const field = m[4] ?? m[6] ?? (m[5] === 'critical' ? 'waitCritical' : 'waitWarning');
  return `groups.${m[1]}.keyPolicies.#${row.uid}.${field}`;
}

/** Server field errors use schema paths; map override keys to rows the same way. */
export function serverErrorsToForm(f: TaskForm, errors: Record<string, string>): ErrorMap {
  const out: ErrorMap = {};
  for (const [rawPath, message] of Object.entries(errors)) {
    const path = keyPolicyPath(f, rawPath);
    // Limits (issue #19): groups.<i>.weights.<key> → the group's one weights field, naming the key
    const w = /^groups\.(\d+)\.weights\.(.+)$/.exec(path);
    if (w) {
      out[`groups.${w[1]}.weights`] = `${w[2]}: ${readable(message)}`;
      continue;
    }
    // Limits (issue #19): groups.<i>.rate.overrides.<key>.<field> → the row
    const rm = /^groups\.(\d+)\.rate\.overrides\.(.+)\.(limit|per|burst)$/.exec(path);
    const rrow = rm ? f.groups[Number(rm[1])]?.rate.overrides.find((o) => o.key === rm[2]) : undefined;
    if (rrow) {
      out[`groups.${rm![1]}.rate.overrides.#${rrow.uid}.${rm![3]}`] = readable(message);
      continue;
    }
    const m = /^groups\.(\d+)\.overrides\.(.+)$/.exec(path);
    const row = m ? f.groups[Number(m[1])]?.overrides.find((o) => o.key === m[2]) : undefined;
    out[row ? `groups.${m![1]}.overrides.#${row.uid}.limit` : path] = readable(message);
  }
  return out;
}

// ─── Fleet defaults: inherited fields in the draft ───
// An inherited field shows the fleet's value; typing into it makes it the task's own
// (the editor's update runs releaseEdited); "Use default" hands it back (inheritField).

function setPath(f: TaskForm, path: InheritablePath, value: unknown): void {
  const [head, tail] = path.split('.') as [string, string | undefined];
  const target = f as unknown as Record<string, Record<string, unknown>>;
  if (tail === undefined) (f as unknown as Record<string, unknown>)[head] = structuredClone(value);
  else target[head]![tail] = structuredClone(value);
}

/** The draft with each inherited field showing the value in effect (`effective`: the fleet defaults). */
export function withInheritedValues(f: TaskForm, effective: object): TaskForm {
  const out = structuredClone(f);
  for (const p of out.inherited) {
    const v = readPath(effective, p);
    if (v !== undefined) setPath(out, p, v);
  }
  return out;
}

/** After an edit: an inherited field whose value changed is now the task's own. */
export function releaseEdited(prev: TaskForm, next: TaskForm): TaskForm {
  const edited = prev.inherited.filter((p) => JSON.stringify(readPath(prev, p)) !== JSON.stringify(readPath(next, p)));
  return edited.length ? { ...next, inherited: next.inherited.filter((p) => !edited.includes(p)) } : next;
}

/** "Use default": the field goes back to the fleet's value and follows it from now on. */
export function inheritField(f: TaskForm, path: InheritablePath, effective: object): TaskForm {
  const out = structuredClone(f);
  if (!out.inherited.includes(path)) out.inherited = INHERITABLE_PATHS.filter((p) => p === path || out.inherited.includes(p));
  setPath(out, path, readPath(effective, path));
  return out;
}
// ─── end fleet defaults ───
