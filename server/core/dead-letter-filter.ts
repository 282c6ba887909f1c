// The dead-letter filter: one schema for the browser's URL, tRPC, REST query strings and
// the CLI flags, so `?task=billing&fingerprint=…` means the same set everywhere — the set
// a replay or a purge acts on is exactly the set the operator was looking at.
// Also the purge confirmation phrase and the URL round trip of a filter.
// Pure: no I/O imports (server/core rule).
import { z } from 'zod';
import { inputText } from './input-text';
import { GROUP_NAME_RE, taskNameSchema } from './task-definition';

const filterDate = z.coerce
  .date({ error: 'must be a date (ISO 8601, e.g. 2026-11-23T10:00:00Z)' })
  .min(new Date('1970-01-01T00:00:00Z'), 'must be after 1970')
  .max(new Date('9999-12-31T00:00:00Z'), 'must be before the year 10000');

export const GROUP_FILTER_RE = new RegExp(`^(${GROUP_NAME_RE.source.slice(1, -1)})=(.{1,200})$`);

export const DEAD_LETTER_STATUSES = ['all', 'pending', 'replayed'] as const;
export type DeadLetterStatus = (typeof DEAD_LETTER_STATUSES)[number];

export const deadLetterFilterSchema = z
  .object({
    task: taskNameSchema.optional(),
      /** An exact error fingerprint (the id a fingerprint group shows). */
    fingerprint: inputText.trim().regex(/^[\w.:-]{1,128}$/, 'must be a fingerprint (letters, digits, . _ : -)').optional(),
    /** `group=key`, e.g. `tenant=acme`. */
    group: inputText.trim().regex(GROUP_FILTER_RE, 'must be group=key, e.g. tenant=acme').optional(),
    stream: inputText.min(1, 'must not be empty').max(200, 'is too long').optional(),
    /** dead_at >= from */
    from: filterDate.optional(),
    /** dead_at < to */
    to: filterDate.optional(),
    /** Text in the last error, case-insensitive. */
    q: inputText.trim().min(1, 'must not be empty').max(200, 'is too long').optional(),
    /** pending = not replayed yet. */
    status: z.enum(DEAD_LETTER_STATUSES, { error: 'must be all, pending or replayed' }).default('all'),
  })
  .strict()
  .refine((f) => !f.from || !f.to || f.from < f.to, { path: ['to'], message: 'must be after "from"' });

export type DeadLetterFilter = z.output<typeof deadLetterFilterSchema>;
export type DeadLetterFilterInput = z.input<typeof deadLetterFilterSchema>;

/** `tenant=acme` → {name: 'tenant', key: 'acme'}. The schema has already checked the shape. */
export function parseGroupFilter(group: string): { name: string; key: string } {
  const m = GROUP_FILTER_RE.exec(group);
  if (!m) throw new RangeError(`not a group filter: ${group}`);
  return { name: m[1]!, key: m[2]! };
}

export const FILTER_KEYS = ['task', 'fingerprint', 'group', 'stream', 'from', 'to', 'q', 'status'] as const;

/** A filter as URL search params (what the browser keeps in its address bar). */
export function filterToSearchParams(f: Partial<DeadLetterFilter>): URLSearchParams {
  const p = new URLSearchParams();
  for (const k of FILTER_KEYS) {
    const v = f[k];
    if (v === undefined || v === null || v === '') continue;
    if (k === 'status' && v === 'all') continue;
    p.set(k, v instanceof Date ? v.toISOString() : String(v));
  }
  return p;
}

/** The filter part of URL search params (other params such as `cursor` are ignored). */
export function searchParamsToFilterInput(p: URLSearchParams | Record<string, string | string[] | undefined>): Record<string, string> {
  const get = (k: string): string | undefined => {
    if (p instanceof URLSearchParams) return p.get(k) ?? undefined;
    const v = p[k];
    return Array.isArray(v) ? v[0] : v;
  };
  const out: Record<string, string> = {};
  for (const k of FILTER_KEYS) {
    const v = get(k);
    if (v !== undefined && v !== '') out[k] = v;
  }
  return out;
}

/** True when the filter selects everything (a purge of "everything" deserves a louder warning). */
export function isEmptyFilter(f: DeadLetterFilter): boolean {
  return FILTER_KEYS.every((k) => (k === 'status' ? f.status === 'all' : f[k] === undefined));
}

/** What the operator must type to purge a frozen set of `count` dead letters. */
export function purgeConfirmationPhrase(count: number): string {
  return `purge ${count}`;
}

/** Typed confirmation: case and repeated spaces do not matter. Other typed confirmations
 *  (cancel matching executions) pass their own phrase. */
export function confirmationMatches(typed: string, count: number, phrase: string = purgeConfirmationPhrase(count)): boolean {
  return typed.trim().replace(/\s+/g, ' ').toLowerCase() === phrase;
}
