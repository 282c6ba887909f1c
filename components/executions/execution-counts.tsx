// What the list's numbers mean: a count from the live counters, an exact count up to
// 10,000 ("10,000+" beyond), or a count of the matches among the ids this page searched;
// the task's (and group key's) live counters beside it; and, when the page read only an
// id window, how far it searched.
import type { ExecutionFilter, ExecutionOrder } from '@/server/core/execution-filter';
import type { ExecutionListPage } from '@/server/presenters/execution';

const n = (x: number) => x.toLocaleString('en-US');

export function ExecutionCounts({ page, filter }: { page: ExecutionListPage; filter: ExecutionFilter }) {
  const c = page.count;
  const k = page.counters;
  return (
    <span className="ml-1 inline-flex flex-wrap items-baseline gap-x-3 font-normal text-muted">
      {c && (
        <span data-testid="executions-count">
          {c.source === 'window'
            ? `${n(c.value)}${c.capped ? '+' : ''} matching in the newest searched ids`
            : `${n(c.value)}${c.capped ? '+' : ''} matching${c.source === 'counter' ? ' (live counter)' : ''}`}
        </span>
      )}
      {k && (
        <span className="text-[12px]" data-testid="executions-counters">
          {k.task ?? 'all tasks'}: {n(k.totals.depth)} queued or blocked · {n(k.totals.running)} running
          {k.totals.spilled > 0 ? ` · ${n(k.totals.spilled)} spilled` : ''}
          {k.group ? ` · ${k.group.key}: ${n(k.group.queued)} queued, ${n(k.group.running)} running` : ''}
        </span>
      )}
      {filter.payload && !filter.task && <span className="text-[12px]">tip: add a task to a payload match</span>}
    </span>
  );
}

export function SearchedNote({ page, order }: { page: ExecutionListPage; order: ExecutionOrder }) {
  const s = page.searched;
  // Only when the page stopped at its window's edge (not because it filled up).
  const upTo = s ? (order === 'newest' ? s.from : s.to - 1) : null;
  if (!s || page.nextCursor === null || page.nextCursor !== upTo) return null;
  return (
    <p className="border-t border-border px-3 py-2 text-[12px] text-muted" data-testid="executions-searched">
      This page searched ids {n(s.from)}–{n(s.to - 1)} ({n(s.window)} ids at most per page, so a rare match never scans the whole table);
      {' '}the next page continues {order === 'newest' ? 'below' : 'above'} id {n(upTo)}.
    </p>
  );
}
