// One execution in full, with why it waits. Operator actions (cancel, retry now) go in
// the header's `actions` slot below.
import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { currentUser, serverCaller } from '@/server/api/rsc';
import { DetailPageHeader, detailOr404 } from '@/components/ui/detail-page-header';
import { Timestamp } from '@/components/ui/timestamp';
import { ExecutionDetailView } from '@/components/executions/execution-detail';
import { ExecutionStateBadge } from '@/components/executions/state-badge';
import { ExecutionActions } from '@/components/executions/execution-actions';
import { roleAtLeast } from '@/server/core/roles';

type Params = { params: Promise<{ id: string }> };

export async function generateMetadata({ params }: Params): Promise<Metadata> {
  return { title: `Execution ${(await params).id}` };
}

export default async function ExecutionPage({ params }: Params) {
  const user = await currentUser();
  if (!user) redirect('/login');
  const d = await detailOr404((await params).id, async (id) => (await serverCaller()).executions.get({ id }));
  return (
    <>
      <DetailPageHeader
        list={{ label: 'Executions', href: '/executions' }}
        id={d.id}
        title={`Execution ${d.id}`}
        task={d.task}
        actions={
          <ExecutionActions
            id={d.id}
            displayState={d.displayState}
            canAct={roleAtLeast(user.role, 'operator')}
            cancelRequested={d.state === 'running' && d.cancelRequestedAt !== null}
          />
        }
      >
        <ExecutionStateBadge state={d.displayState} />
        <span>enqueued</span>
        <Timestamp date={d.enqueuedAt} />
        <span>
          · {d.attempts} attempt{d.attempts === 1 ? '' : 's'}
        </span>
      </DetailPageHeader>
      <ExecutionDetailView d={d} />
    </>
  );
}
