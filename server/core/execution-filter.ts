// The executions filter: one schema for the browser's URL, tRPC, the REST query string and
// the CLI flags, so `?task=send-email&state=queued&group=tenant=acme` means the same set
// everywhere. Also the payload match (`path=value`) and the URL round trip.
// Pure: no I/O imports (server/core rule).
import { z } from 'zod';
import { taskNameSchema } from './task-definition';
import { MAX_KEY_LENGTH } from './key-path';

/**
 * The states the list filters on, as an operator names them. Not all are stored states:
 * `scheduled` is a queued row whose run_at is in the future (a delay, or a retry's backoff),
 * `queued` one that is due; `spilled` lives in the overflow table. Adding a state is one
 * line here and one in server/db/execution-conditions.ts (a Record over this list, so the
 * compiler asks for it).
 */
export const EXECUTION_STATES = ['queued', 'scheduled', 'blocked', 'running', 'succeeded', 'dead', 'canceled', 'spilled'] as const;
export type ExecutionState = (typeof EXECUTION_STATES)[number];

export const EXECUTION_ORDERS = ['newest', 'oldest'] as const;
export type ExecutionOrder = (typeof EXECUTION_ORDERS)[number];

const filterDate = z.coerce
  .date({ error: 'must be a date (ISO 8601, e.g. 2026-11-23T10:00:00Z)' })
  .min(new Date('1970-01-01T00:00:00Z'), 'must be after 1970')
  .max(new Date('9999-12-31T00:00:00Z'), 'must be before the year 10000');

// Postgres text cannot hold NUL, and a lone surrogate has no UTF-8 encoding: both are a
// 400 naming the field, never a database error.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
function keyText(what: string) {
  return z
    .string()
    .min(1, 'must not be empty')
    .max(MAX_KEY_LENGTH, `is longer than ${MAX_KEY_LENGTH} characters`)
    .refine((s) => !s.includes('\u0000'), 'must not contain NUL')
    .refine((s) => !LONE_SURROGATE.test(s), 'must be valid Unicode (a lone surrogate)')
    .describe(what);
}

const GROUP_FILTER_RE = /^([a-z][a-z0-9_-]{0,39})=(.+)$/s;
/** A payload path: dot-separated keys, an all-digit segment indexes an array (server/core/key-path.ts). */
const PAYLOAD_PATH_RE = /^[A-Za-z0-9_$@-]{1,64}(\.[A-Za-z0-9_$@-]{1,64}){0,7}$/;

export const executionFilterSchema = z
  .object({
    task: taskNameSchema.optional(),
    state: z.enum(EXECUTION_STATES, { error: `must be one of: ${EXECUTION_STATES.join(', ')}` }).optional(),
    /** `group=key`, e.g. `tenant=acme`. */
    group: keyText('group=key')
      .refine((s) => GROUP_FILTER_RE.test(s), 'must be group=key, e.g. tenant=acme')
      .optional(),
    stream: keyText('stream key').optional(),
    idempotencyKey: keyText('idempotency key').optional(),
    id: z.coerce
      .number({ error: 'must be a positive integer' })
      .int('must be a positive integer')
      .positive('must be a positive integer')
      .max(Number.MAX_SAFE_INTEGER, 'is too large')
      .optional(),
    /** enqueued_at >= enqueuedFrom */
    enqueuedFrom: filterDate.optional(),
    /** enqueued_at < enqueuedTo */
    enqueuedTo: filterDate.optional(),
    /** finished_at >= finishedFrom */
    finishedFrom: filterDate.optional(),
    /** finished_at < finishedTo */
    finishedTo: filterDate.optional(),
    /** `path=value`: the payload's value at the dot path equals `value` (numbers and booleans as text, as group keys read them). */
    payload: keyText('payload path=value')
      .refine((s) => {
        const i = s.indexOf('=');
        return i > 0 && PAYLOAD_PATH_RE.test(s.slice(0, i));
      }, 'must be path=value, e.g. customer.id=42 (letters, digits, _ - $ @ in up to 8 dot-separated keys)')
      .optional(),
  })
  .strict()
  .refine((f) => !f.enqueuedFrom || !f.enqueuedTo || f.enqueuedFrom < f.enqueuedTo, { path: ['enqueuedTo'], message: 'must be after "enqueuedFrom"' })
  .refine((f) => !f.finishedFrom || !f.finishedTo || f.finishedFrom < f.finishedTo, { path: ['finishedTo'], message: 'must be after "finishedFrom"' });

export type ExecutionFilter = z.output<typeof executionFilterSchema>;
export type ExecutionFilterInput = z.input<typeof executionFilterSchema>;

export const EXECUTION_FILTER_KEYS = [
  'task',
  'state',
  'group',
  'stream',
  'idempotencyKey',
  'id',
  'enqueuedFrom',
  'enqueuedTo',
  'finishedFrom',
  'finishedTo',
  'payload',
] as const;
export type ExecutionFilterKey = (typeof EXECUTION_FILTER_KEYS)[number];

/** `tenant=acme` → {name: 'tenant', key: 'acme'}. The schema has already checked the shape. */
export function parseExecutionGroup(group: string): { name: string; key: string } {
  const m = GROUP_FILTER_RE.exec(group);
  if (!m) throw new RangeError(`not a group filter: ${group}`);
  return { name: m[1]!, key: m[2]! };
}

/** `customer.id=42` → {path: ['customer', 'id'], value: '42'}. */
export function parsePayloadMatch(s: string): { path: string[]; value: string } {
  const i = s.indexOf('=');
  if (i <= 0) throw new RangeError(`not a payload match: ${s}`);
  return { path: s.slice(0, i).split('.'), value: s.slice(i + 1) };
}

/** A filter as URL search params (what the browser keeps in its address bar). */
export function executionFilterToSearchParams(f: Partial<ExecutionFilter>): URLSearchParams {
  const p = new URLSearchParams();
  for (const k of EXECUTION_FILTER_KEYS) {
    const v = f[k];
    if (v === undefined || v === null || v === '') continue;
    p.set(k, v instanceof Date ? v.toISOString() : String(v));
  }
  return p;
}

/** The filter part of URL search params / a query string (cursor, order, limit are not filter fields). */
export function searchParamsToExecutionFilterInput(p: URLSearchParams | Record<string, string | string[] | undefined>): Record<string, string> {
  const get = (k: string): string | undefined => {
    if (p instanceof URLSearchParams) return p.get(k) ?? undefined;
    const v = p[k];
    return Array.isArray(v) ? v[0] : v;
  };
  const out: Record<string, string> = {};
  for (const k of EXECUTION_FILTER_KEYS) {
    const v = get(k);
    if (v !== undefined && v !== '') out[k] = v;
  }
  return out;
}

/**
 * How many ids one list request walks at most when no index bounds the filter: the list
 * reads ids in (cursor − window, cursor] (newest first) and says how far it searched, so a
 * rare match costs a bounded amount per page and "Search older" continues from there.
 * bench:executions at 5M rows (load ~25 on 2 shared cores): with 50,000, a rare group
 * key's pages took p50 170–250 ms, nearly all of it the window's heap reads; 20,000
 * reads 2.5× fewer rows per page.
 */
export const EXECUTION_SCAN_WINDOW = 20_000;

/** Filters answered by an index that bounds the work by itself: no id window needed. */
export function filterIsIndexBounded(f: ExecutionFilter): boolean {
  return f.id !== undefined || f.idempotencyKey !== undefined || f.state === 'running';
}

/** A filter as the SQL layer takes it: the group and payload match taken apart. */
export interface ExecutionQuery extends Omit<ExecutionFilter, 'group' | 'payload'> {
  /** 'tenant=acme', as executions.group_keys holds it */
  groupKey?: string;
  payloadMatch?: { path: string[]; value: string };
}

export function toExecutionQuery(f: ExecutionFilter): ExecutionQuery {
  const { group, payload, ...rest } = f;
  const q: ExecutionQuery = { ...rest };
  if (group !== undefined) {
    const g = parseExecutionGroup(group);
    q.groupKey = `${g.name}=${g.key}`;
  }
  if (payload !== undefined) q.payloadMatch = parsePayloadMatch(payload);
  return q;
}
