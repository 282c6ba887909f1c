// Executions: filters in the URL (task, state, group key, stream, idempotency key, id,
// times, payload), keyset pages newest or oldest first, counts from the live counters or
// capped, and a note saying how far a page searched when the filter has no index of its
// own (server/db/list-executions.ts).
import type { Metadata } from 'next';
import Link from 'next/link';
import { redirect } from 'next/navigation';
import { TRPCError } from '@trpc/server';
import { currentUser, serverCaller } from '@/server/api/rsc';
import type { ExecutionListPage } from '@/server/presenters/execution';
import { PageHeader } from '@/components/ui/page-header';
import { Panel } from '@/components/ui/panel';
import { Callout } from '@/components/ui/callout';
import { buttonClass } from '@/components/ui/button';
import { ExecutionFilters } from '@/components/executions/execution-filters';
import { ExecutionTable } from '@/components/executions/execution-table';
import { ExecutionCounts, SearchedNote } from '@/components/executions/execution-counts';
import { executionQueryFromSearchParams, executionsHref, type ExecutionSearchParams } from '@/components/executions/execution-search-params';
import { CancelMatchingButton } from '@/components/executions/cancel-matching-dialog';
import { roleAtLeast } from '@/server/core/roles';

export const metadata: Metadata = { title: 'Executions' };

export default async function ExecutionsPage({ searchParams }: { searchParams: Promise<ExecutionSearchParams> }) {
  const user = await currentUser();
  if (!user) redirect('/login');
  const sp = await searchParams;
  const { filter, order, cursor, problems } = executionQueryFromSearchParams(sp);
  const caller = await serverCaller();
  const tasks = (await caller.tasks.list()).tasks.map((t) => t.name);
  let page: ExecutionListPage | null = null;
  let problem = problems.length ? problems.join('; ') : null;
  if (filter && !problem) {
    try {
      page = await caller.executions.list({ filter, order, limit: 50, ...(cursor !== undefined ? { cursor } : {}) });
    } catch (e) {
      if (!(e instanceof TRPCError) || e.code !== 'BAD_REQUEST') throw e;
      problem = e.message;
    }
  }
  return (
    <>
      <PageHeader
        title="Executions"
        description="Every execution, queued to finished. Filter by task, state, group key or stream; open one to see why it waits."
        actions={filter && !problem ? <CancelMatchingButton listFilter={filter} canAct={roleAtLeast(user.role, 'operator')} /> : undefined}
      />
      <Panel className="mb-4">
        <ExecutionFilters sp={sp} filter={filter} order={order} tasks={tasks} />
        {problem && (
          <div className="p-3">
            <Callout tone="danger">{problem}</Callout>
          </div>
        )}
      </Panel>
      <Panel title={<span>Executions {page && <ExecutionCounts page={page} filter={filter!} />}</span>}>
        {page && filter && (
          <>
            <ExecutionTable items={page.items} filter={filter} order={order} />
            <SearchedNote page={page} order={order} />
            {(cursor !== undefined || page.nextCursor !== null) && (
              <nav aria-label="Execution pages" className="flex items-center justify-between gap-2 p-3">
                {cursor !== undefined ? (
                  <Link href={executionsHref(filter, { order })} className={buttonClass('secondary', 'sm')}>
                    ← {order === 'newest' ? 'Newest' : 'Oldest'}
                  </Link>
                ) : (
                  <span />
                )}
                {page.nextCursor !== null && (
                  <Link href={executionsHref(filter, { order, cursor: page.nextCursor })} className={buttonClass('secondary', 'sm')}>
                    {page.items.length === 0 ? 'Search' : 'Next page:'} {order === 'newest' ? 'older' : 'newer'} →
                  </Link>
                )}
              </nav>
            )}
          </>
        )}
      </Panel>
    </>
  );
}
