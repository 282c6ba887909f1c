// The Dead letters page keeps its filters in the URL (shareable, back-button friendly):
// the same fields as the filter schema (server/core/dead-letter-filter.ts), with times in UTC as
// `YYYY-MM-DDTHH:MM` (what a datetime-local input gives) or full ISO.
import { deadLetterFilterSchema, FILTER_KEYS, filterToSearchParams, type DeadLetterFilter } from '@/server/core/dead-letter-filter';
import { parseUtc } from '@/components/audit/audit-search-params';

export type DeadLetterSearchParams = Record<string, string | string[] | undefined>;

function one(v: string | string[] | undefined): string | undefined {
  const s = Array.isArray(v) ? v[0] : v;
  return s === undefined || s.trim() === '' ? undefined : s.trim();
}

export function filterFromSearchParams(sp: DeadLetterSearchParams): { filter: DeadLetterFilter | null; cursor: string | undefined; problems: string[] } {
  const raw: Record<string, unknown> = {};
  for (const k of FILTER_KEYS) {
    const v = one(sp[k]);
    if (v === undefined) continue;
    raw[k] = k === 'from' || k === 'to' ? parseUtc(v) : v;
  }
  const r = deadLetterFilterSchema.safeParse(raw);
  const cursor = one(sp.cursor);
  if (!r.success) return { filter: null, cursor, problems: r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`) };
  return { filter: r.data, cursor, problems: [] };
}

/** `/dead-letters?…` for a filter (plus a cursor or overrides); dates as UTC minutes. */
export function deadLettersHref(filter: Partial<DeadLetterFilter>, extra: Record<string, string | undefined> = {}): string {
  const p = filterToSearchParams(filter);
  for (const k of ['from', 'to'] as const) {
    const d = filter[k];
    if (d) p.set(k, d.toISOString().slice(0, 16));
  }
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) p.delete(k);
    else p.set(k, v);
  }
  const s = p.toString();
  return s ? `/dead-letters?${s}` : '/dead-letters';
}

/** A datetime-local input's value (UTC minutes) for a date. */
export function utcInputValue(d: Date | undefined): string {
  return d ? d.toISOString().slice(0, 16) : '';
}
