// What "cancel matching executions" acts on: one task's unfinished executions, narrowed by
// state, group key, stream key and enqueue time. One schema for tRPC, REST bodies and the
// CLI flags, so a preview means the same set everywhere. Also the typed confirmation
// phrase ("cancel 1200") and the states an operator may cancel.
// Pure: no I/O imports (server/core rule).
import { z } from 'zod';
import { taskNameSchema } from './task-definition';
import { GROUP_FILTER_RE } from './dead-letter-filter';
import type { ExecutionFilter, ExecutionQuery } from './execution-filter';

/** States a cancel can act on. scheduled = queued with run_at in the future (a delay or a
 *  retry's backoff); spilled = parked in the overflow table. */
export const CANCELABLE_STATES = ['queued', 'scheduled', 'blocked', 'spilled', 'running'] as const;
export type CancelableState = (typeof CANCELABLE_STATES)[number];

/** The backlog: what a filter cancels when it names no state (running work is opt-in). */
export const DEFAULT_CANCEL_STATES: readonly CancelableState[] = ['queued', 'scheduled', 'blocked', 'spilled'];

// NUL cannot be stored in Postgres text; an unpaired surrogate is not text at all.
const LONE_SURROGATE_RE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
export function isStorableText(s: string): boolean {
  return !s.includes('\u0000') && !LONE_SURROGATE_RE.test(s);
}
const storable = { message: 'must not contain NUL characters or unpaired surrogates' };

const filterDate = z.coerce
  .date({ error: 'must be a date (ISO 8601, e.g. 2026-11-23T10:00:00Z)' })
  .min(new Date('1970-01-01T00:00:00Z'), 'must be after 1970')
  .max(new Date('9999-12-31T00:00:00Z'), 'must be before the year 10000');

export const executionCancelFilterSchema = z
  .object({
    task: taskNameSchema,
    states: z
      .array(z.enum(CANCELABLE_STATES, { error: `must be one of ${CANCELABLE_STATES.join(', ')}` }))
      .min(1, 'name at least one state')
      .max(CANCELABLE_STATES.length, 'names a state twice')
      .refine((a) => new Set(a).size === a.length, 'names a state twice')
      .default([...DEFAULT_CANCEL_STATES]),
    /** `group=key`, e.g. `tenant=acme`. */
    group: z.string().trim().regex(GROUP_FILTER_RE, 'must be group=key, e.g. tenant=acme').refine(isStorableText, storable).optional(),
    stream: z.string().min(1, 'must not be empty').max(200, 'is too long').refine(isStorableText, storable).optional(),
    /** enqueued_at >= from */
    from: filterDate.optional(),
    /** enqueued_at < to */
    to: filterDate.optional(),
  })
  .strict()
  .refine((f) => !f.from || !f.to || f.from < f.to, { path: ['to'], message: 'must be after "from"' });

export type ExecutionCancelFilter = z.output<typeof executionCancelFilterSchema>;
export type ExecutionCancelFilterInput = z.input<typeof executionCancelFilterSchema>;

/** What the operator must type to cancel a frozen set of `count` executions. */
export function cancelConfirmationPhrase(count: number): string {
  return `cancel ${count}`;
}

/** An execution id as it arrives in a path or a CLI argument. */
const ID_MESSAGE = 'must be an execution id (a positive integer)';
export const executionIdSchema = z.preprocess(
  (v) => (typeof v === 'string' && /^\d{1,16}$/.test(v) ? Number(v) : v),
  z.number({ error: ID_MESSAGE }).int(ID_MESSAGE).positive(ID_MESSAGE).max(Number.MAX_SAFE_INTEGER, 'is too large'),
);

/** Parses `queued,blocked` (CLI flag, URL parameter) into states; unknown names are kept so
 *  the schema reports them by name. */
export function parseStateList(s: string): string[] {
  return s
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x.length > 0);
}

/**
 * The cancel filter as the list's filter, one query per state it names: the frozen set is
 * the union of what the executions list shows for each of these (server/db/freeze-cancel-set.ts
 * builds its WHERE with the list's executionWhere), so a filter selects the same
 * executions in the list and in the cancel preview.
 */
export type CancelQuery = ExecutionQuery & { state: CancelableState };

export function cancelFilterQueries(f: ExecutionCancelFilter): CancelQuery[] {
  return f.states.map((state) => ({
    task: f.task,
    state,
    ...(f.group !== undefined ? { groupKey: f.group } : {}),
    ...(f.stream !== undefined ? { stream: f.stream } : {}),
    ...(f.from !== undefined ? { enqueuedFrom: f.from } : {}),
    ...(f.to !== undefined ? { enqueuedTo: f.to } : {}),
  }));
}

/** The cancel filter for a list filter (the list's "Cancel matching…"), or why there is none. */
export function cancelFilterForListFilter(f: ExecutionFilter): { filter: ExecutionCancelFilterInput } | { reason: string } {
  if (f.task === undefined) return { reason: 'Pick a task first: cancel acts on one task at a time' };
  if (f.state !== undefined && !(CANCELABLE_STATES as readonly string[]).includes(f.state)) return { reason: `${f.state} executions are finished: nothing to cancel` };
  const unsupported = (['id', 'idempotencyKey', 'payload', 'finishedFrom', 'finishedTo'] as const).filter((k) => f[k] !== undefined);
  if (unsupported.length > 0) return { reason: `Cancel matching takes task, state, group, stream and enqueue time; remove ${unsupported.join(', ')}` };
  return {
    filter: {
      task: f.task,
      ...(f.state !== undefined ? { states: [f.state as CancelableState] } : {}),
      ...(f.group !== undefined ? { group: f.group } : {}),
      ...(f.stream !== undefined ? { stream: f.stream } : {}),
      ...(f.enqueuedFrom !== undefined ? { from: f.enqueuedFrom } : {}),
      ...(f.enqueuedTo !== undefined ? { to: f.enqueuedTo } : {}),
    },
  };
}
