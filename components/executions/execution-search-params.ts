// The Executions page keeps its filter, order and cursor in the URL (shareable, back-button
// friendly): the same fields as the filter schema (server/core/execution-filter.ts), times
// in UTC as `YYYY-MM-DDTHH:MM` (what a datetime-local input gives) or full ISO.
import {
  EXECUTION_FILTER_KEYS,
  executionFilterSchema,
  executionFilterToSearchParams,
  type ExecutionFilter,
  type ExecutionOrder,
} from '@/server/core/execution-filter';
import { parseUtc } from '@/components/audit/audit-search-params';

export type ExecutionSearchParams = Record<string, string | string[] | undefined>;

const DATE_KEYS = new Set(['enqueuedFrom', 'enqueuedTo', 'finishedFrom', 'finishedTo']);

function one(v: string | string[] | undefined): string | undefined {
  const s = Array.isArray(v) ? v[0] : v;
  return s === undefined || s.trim() === '' ? undefined : s.trim();
}

export function executionQueryFromSearchParams(sp: ExecutionSearchParams): {
  filter: ExecutionFilter | null;
  order: ExecutionOrder;
  cursor: number | undefined;
  problems: string[];
} {
  const raw: Record<string, unknown> = {};
  for (const k of EXECUTION_FILTER_KEYS) {
    const v = one(sp[k]);
    if (v === undefined) continue;
    raw[k] = DATE_KEYS.has(k) ? parseUtc(v) : v;
  }
  const order: ExecutionOrder = one(sp.order) === 'oldest' ? 'oldest' : 'newest';
  const c = one(sp.cursor);
  const problems: string[] = [];
  let cursor: number | undefined;
  if (c !== undefined) {
    if (/^\d{1,15}$/.test(c)) cursor = Number(c);
    else problems.push('cursor: is not a valid page cursor');
  }
  const r = executionFilterSchema.safeParse(raw);
  if (!r.success) return { filter: null, order, cursor, problems: [...problems, ...r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`)] };
  return { filter: r.data, order, cursor, problems };
}

/** `/executions?…` for a filter (plus order / cursor); dates as UTC minutes. */
export function executionsHref(filter: Partial<ExecutionFilter>, extra: { order?: ExecutionOrder; cursor?: number | null } = {}): string {
  const p = executionFilterToSearchParams(filter);
  for (const k of DATE_KEYS) {
    const d = filter[k as keyof ExecutionFilter];
    if (d instanceof Date) p.set(k, d.toISOString().slice(0, 16));
  }
  if (extra.order === 'oldest') p.set('order', 'oldest');
  if (extra.cursor !== undefined && extra.cursor !== null) p.set('cursor', String(extra.cursor));
  const s = p.toString();
  return s ? `/executions?${s}` : '/executions';
}
