// The per-task Keys and Streams views: their input rules, the page cursor of the Keys
// view, each key's limit (override marked), a stream head's status, and the links that
// lead into and out of the views (the executions list filtered by a key, the task editor
// prefilled with an override). Pure: no I/O imports (server/core rule).
import { z } from 'zod';
import { GROUP_NAME_RE, TASK_NAME_RE, type GroupDefinition } from './task-definition';
import { MAX_KEY_LENGTH } from './key-path';
import { effectiveKeyRate, formatRate, nextSlotInMs, type GroupRate, type RateSpec } from './rate-limit';

/** Rows per page of either view, unless asked otherwise (at most MAX_VIEW_PAGE). */
export const KEY_PAGE_SIZE = 50;
export const MAX_VIEW_PAGE = 100;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

// A key as it can appear in a URL: any text but NUL (Postgres text cannot hold it) and
// lone surrogates (they would not survive the round trip through UTF-8).
const keyText = z
  .string()
  .min(1, 'must not be empty')
  .max(MAX_KEY_LENGTH, `at most ${MAX_KEY_LENGTH} characters`)
  .refine((s) => !s.includes('\u0000'), 'must not contain NUL')
  .refine((s) => !LONE_SURROGATE.test(s), 'must be well-formed text (no lone surrogates)');

const taskName = z.string().regex(TASK_NAME_RE, 'is not a task name');
const groupName = z.string().regex(GROUP_NAME_RE, 'is not a group name');

export interface KeyCursor {
  queued: number;
  key: string;
}

/** The Keys view's cursor: the last row's (queued, key), as `queued:key`. */
export function encodeKeyCursor(c: KeyCursor): string {
  return `${c.queued}:${c.key}`;
}

export function decodeKeyCursor(s: string): KeyCursor | null {
  const at = s.indexOf(':');
  if (at < 1) return null;
  const q = s.slice(0, at);
  const key = s.slice(at + 1);
  if (!/^(0|[1-9]\d{0,9})$/.test(q) || Number(q) > 2_147_483_647) return null;
  if (!keyText.safeParse(key).success) return null;
  return { queued: Number(q), key };
}

export const taskKeysInput = z.strictObject({
  task: taskName,
  /** Absent: the task's first group. */
  group: groupName.optional(),
  after: z
    .string()
    .max(MAX_KEY_LENGTH + 12)
    .refine((s) => decodeKeyCursor(s) !== null, 'is not a valid page cursor')
    .optional(),
  /** A key to show pinned above the page (the one an alert or a link is about). */
  key: keyText.optional(),
  limit: z.number().int().min(1).max(MAX_VIEW_PAGE).default(KEY_PAGE_SIZE),
});
export type TaskKeysInput = z.input<typeof taskKeysInput>;

export const taskStreamsInput = z.strictObject({
  task: taskName,
  /** The first-behind execution id the previous page ended at (the streams' rank). */
  after: z.number().int().positive().max(Number.MAX_SAFE_INTEGER).optional(),
  limit: z.number().int().min(1).max(MAX_VIEW_PAGE).default(KEY_PAGE_SIZE),
});
export type TaskStreamsInput = z.input<typeof taskStreamsInput>;

/** The groups of a stored definition (task_runtime.definition), leniently: bad entries are skipped. */
export function groupsOf(definition: unknown): GroupDefinition[] {
  const raw = (definition as { groups?: unknown } | null)?.groups;
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((g: unknown) => {
    const x = g as Partial<GroupDefinition> | null;
    if (!x || typeof x.name !== 'string' || typeof x.limit !== 'number') return [];
    const overrides = x.overrides && typeof x.overrides === 'object' ? x.overrides : {};
    return [{ name: x.name, limit: x.limit, keyPath: x.keyPath, overrides } as GroupDefinition];
  });
}

/** A key's limit in its group and whether an override sets it. */
export function keyLimit(group: GroupDefinition, key: string): { limit: number; override: boolean } {
  // Own properties only: a key named "constructor" must not read Object.prototype.
  const override = Object.hasOwn(group.overrides, key);
  return { limit: override ? group.overrides[key]! : group.limit, override };
}

// ---------------------------------------------------------------------------------
// Rate and fair share of a key (issue #19), for the Keys view
// ---------------------------------------------------------------------------------

export interface KeyRateView {
  /** The key's rate (the group's, its override fields on top). */
  spec: RateSpec;
  /** "50/s, burst 5" */
  label: string;
  /** ms until the key may start its next execution; 0 = now. */
  nextSlotMs: number;
  /** Its rate holds it now (its next slot is in the future). */
  held: boolean;
  /** Finished in the last complete minute, in the rate's unit ("per `spec.per` ms"); null before the first count. */
  current: number | null;
}

export interface KeyFairView {
  weight: number;
  /** running ÷ weight: what fair share compares across the waiting keys (equal when shared fairly). */
  perWeight: number;
}

const groupEntry = (definition: unknown, group: string): Record<string, unknown> | null => {
  const raw = (definition as { groups?: unknown } | null)?.groups;
  if (!Array.isArray(raw)) return null;
  const g = raw.find((x: unknown) => (x as { name?: unknown } | null)?.name === group) as Record<string, unknown> | undefined;
  return g ?? null;
};

/** A group's rate in a stored definition, leniently: null when it has none (or it is malformed). */
export function groupRateOf(definition: unknown, group: string): GroupRate | null {
  const r = groupEntry(definition, group)?.rate as Partial<GroupRate> | undefined;
  if (!r || typeof r.limit !== 'number' || typeof r.per !== 'number' || r.limit <= 0 || r.per <= 0) return null;
  const overrides = r.overrides && typeof r.overrides === 'object' ? r.overrides : {};
  return { limit: r.limit, per: r.per, burst: typeof r.burst === 'number' ? r.burst : 0, overrides };
}

/** A key's rate, when its group has one: the limit, its next slot (from the scope's TAT, null = none
 *  recorded: full) and its current rate from finished/min. */
export function keyRateView(definition: unknown, group: string, key: string, tatMs: number | null, nowMs: number, finishedPerMinute: number | null): KeyRateView | null {
  const rate = groupRateOf(definition, group);
  if (!rate) return null;
  const spec = effectiveKeyRate(rate, key);
  const next = nextSlotInMs(spec, tatMs, nowMs);
  return {
    spec,
    label: formatRate(spec),
    nextSlotMs: next,
    held: next > 0,
    current: finishedPerMinute === null ? null : (finishedPerMinute * spec.per) / 60_000,
  };
}

/** A key's fair share, when its task shares this group fairly (`order: fair`; the fair group
 *  is `fairGroup`, else the first group): its weight (default 1) and running ÷ weight. */
export function keyFairView(definition: unknown, group: string, key: string, running: number): KeyFairView | null {
  const d = definition as { order?: unknown; fairGroup?: unknown; groups?: unknown } | null;
  if (d?.order !== 'fair' || !Array.isArray(d.groups)) return null;
  const fair = typeof d.fairGroup === 'string' ? d.fairGroup : (d.groups[0] as { name?: unknown } | undefined)?.name;
  if (fair !== group) return null;
  const weights = groupEntry(definition, group)?.weights as Record<string, unknown> | undefined;
  const w = weights && Object.hasOwn(weights, key) && typeof weights[key] === 'number' && (weights[key] as number) > 0 ? (weights[key] as number) : 1;
  return { weight: w, perWeight: running / w };
}

export type StreamHeadStatus = 'running' | 'retry-scheduled' | 'scheduled' | 'queued';

/** What a stream's head is doing: running, waiting for its retry (or delay) time, or due. */
export function streamHeadStatus(h: { state: 'queued' | 'running'; attempts: number; runAt: Date }, now: Date): StreamHeadStatus {
  if (h.state === 'running') return 'running';
  if (h.runAt.getTime() > now.getTime()) return h.attempts > 0 ? 'retry-scheduled' : 'scheduled';
  return 'queued';
}

// ---------------------------------------------------------------------------------
// Links
// ---------------------------------------------------------------------------------

const taskPath = (task: string) => `/tasks/${encodeURIComponent(task)}`;

/** The executions list filtered by one group key: `/executions?task=T&group=tenant%3Dacme`. */
export function executionsOfKeyHref(task: string, group: string, key: string): string {
  return `/executions?${new URLSearchParams({ task, group: `${group}=${key}` }).toString()}`;
}

export function executionHref(id: number): string {
  return `/executions/${id}`;
}

/** 'tenant=acme' (executions.group_keys, waiting_on) → its group and key; the group ends at the first '='. */
export function splitGroupKey(gk: string): { group: string; key: string } | null {
  const at = gk.indexOf('=');
  return at < 1 ? null : { group: gk.slice(0, at), key: gk.slice(at + 1) };
}

/** The Keys view of a task, on one group, with one key pinned. */
export function keysViewHref(task: string, group?: string | null, key?: string | null): string {
  const q = new URLSearchParams();
  if (group) q.set('group', group);
  if (group && key) q.set('key', key);
  const s = q.toString();
  return `${taskPath(task)}/keys${s ? `?${s}` : ''}`;
}

export function streamsViewHref(task: string): string {
  return `${taskPath(task)}/streams`;
}

/** The task editor with an override row for `group=key` added, scrolled to the groups. */
export function addOverrideHref(task: string, group: string, key: string): string {
  return `${taskPath(task)}?${new URLSearchParams({ override: `${group}=${key}` }).toString()}#sec-groups`;
}

/** The editor's `override` URL parameter back into (group, key); null when malformed. */
export function parseOverrideParam(s: string | null | undefined): { group: string; key: string } | null {
  if (!s) return null;
  const at = s.indexOf('=');
  if (at < 1) return null;
  const group = s.slice(0, at);
  const key = s.slice(at + 1);
  if (!GROUP_NAME_RE.test(group) || !keyText.safeParse(key).success) return null;
  return { group, key };
}
