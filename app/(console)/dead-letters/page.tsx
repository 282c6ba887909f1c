// Dead letters: filters in the URL, fingerprint groups, replay jobs with live progress,
// and the keyset-paginated list with replay / purge for operators.
import type { Metadata } from 'next';
import Link from 'next/link';
import { redirect } from 'next/navigation';
import { TRPCError } from '@trpc/server';
import { currentUser, serverCaller } from '@/server/api/rsc';
import { roleAtLeast } from '@/server/core/roles';
import type { DeadLetterListPage, FingerprintGroups as Groups } from '@/server/presenters/dead-letters';
import { PageHeader } from '@/components/ui/page-header';
import { Panel } from '@/components/ui/panel';
import { Callout } from '@/components/ui/callout';
import { buttonClass } from '@/components/ui/button';
import { DeadLetterFilters } from '@/components/dead-letters/dead-letter-filters';
import { FingerprintGroups } from '@/components/dead-letters/fingerprint-groups';
import { DeadLetterTable } from '@/components/dead-letters/dead-letter-table';
import { ReplayJobs } from '@/components/dead-letters/replay-jobs';
import { deadLettersHref, filterFromSearchParams, type DeadLetterSearchParams } from '@/components/dead-letters/dead-letter-search-params';

export const metadata: Metadata = { title: 'Dead letters' };

export default async function DeadLettersPage({ searchParams }: { searchParams: Promise<DeadLetterSearchParams> }) {
  const user = await currentUser();
  if (!user) redirect('/login');
  const canOperate = roleAtLeast(user.role, 'operator');
  const sp = await searchParams;
  const { filter, cursor, problems } = filterFromSearchParams(sp);
  const caller = await serverCaller();
  const tasks = await caller.deadLetters.tasks();
  let page: DeadLetterListPage | null = null;
  let groups: Groups = { groups: [], sampledNewest: null };
  let problem = problems.length ? problems.join('; ') : null;
  if (filter) {
    try {
      [page, groups] = await Promise.all([
        caller.deadLetters.list({ filter, limit: 50, ...(cursor ? { cursor } : {}) }),
        cursor ? Promise.resolve(groups) : caller.deadLetters.fingerprints({ filter, limit: 10 }),
      ]);
    } catch (e) {
      if (!(e instanceof TRPCError) || e.code !== 'BAD_REQUEST') throw e;
      problem = e.message;
    }
  }
  const count = page?.count ?? null;
  return (
    <>
      <PageHeader
        title="Dead letters"
        description="Executions that failed their last attempt. Replay them through the engine (rate-limited, tracked), or purge an exact, frozen set."
      />
      <Panel className="mb-4">
        <DeadLetterFilters sp={sp} filter={filter} tasks={tasks} />
        {problem && (
          <div className="p-3">
            <Callout tone="danger">{problem}</Callout>
          </div>
        )}
      </Panel>
      <ReplayJobs canOperate={canOperate} />
      {filter && !cursor && <FingerprintGroups groups={groups.groups} sampledNewest={groups.sampledNewest} filter={filter} />}
      <Panel
        title={
          <span>
            Dead letters{' '}
            {count !== null && (
              <span className="ml-1 font-normal text-muted" data-testid="dlq-count">
                {page?.countCapped ? `${count.toLocaleString('en-US')}+` : count.toLocaleString('en-US')} matching
              </span>
            )}
          </span>
        }
      >
        {page && filter && <DeadLetterTable items={page.items} filter={filter} count={count} countCapped={page.countCapped} canOperate={canOperate} />}
        {page && filter && (cursor || page.nextCursor) && (
          <nav aria-label="Dead letter pages" className="flex items-center justify-between gap-2 p-3">
            {cursor ? (
              <Link href={deadLettersHref(filter)} className={buttonClass('secondary', 'sm')}>
                ← Newest
              </Link>
            ) : (
              <span />
            )}
            {page.nextCursor && (
              <Link href={deadLettersHref(filter, { cursor: page.nextCursor })} className={buttonClass('secondary', 'sm')}>
                Older →
              </Link>
            )}
          </nav>
        )}
      </Panel>
    </>
  );
}
