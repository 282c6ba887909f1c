// The Overview's URL state: ?range=1h&task=emails&live=off. One parser for the server
// page (prefetch) and the client view (query), so both ask for the same query key.
import { TASK_NAME_RE } from '@/server/core/task-definition';
import { TIME_RANGES, type TimeRange } from '@/server/core/rollup-buckets';

export function parseRange(v: string | null | undefined): TimeRange {
  return (TIME_RANGES as readonly string[]).includes(v ?? '') ? (v as TimeRange) : '1h';
}

export interface OverviewParams {
  range: TimeRange;
  task?: string;
  live: boolean;
}

type Get = (key: string) => string | null | undefined;

export function overviewParams(get: Get): OverviewParams {
  const task = get('task') ?? undefined;
  return {
    range: parseRange(get('range')),
    ...(task && TASK_NAME_RE.test(task) ? { task } : {}),
    live: get('live') !== 'off',
  };
}

export function overviewQueryInput(p: OverviewParams): { range: TimeRange; task?: string } {
  return p.task ? { range: p.range, task: p.task } : { range: p.range };
}

export function overviewHref(p: OverviewParams, base = '/'): string {
  const q = new URLSearchParams();
  if (p.range !== '1h') q.set('range', p.range);
  if (p.task) q.set('task', p.task);
  if (!p.live) q.set('live', 'off');
  const s = q.toString();
  return s ? `${base}?${s}` : base;
}
