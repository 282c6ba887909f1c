// One execution in full, with why it waits. Operator actions (cancel, retry now) go in
// the header's `actions` slot below.
import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound, redirect } from 'next/navigation';
import { TRPCError } from '@trpc/server';
import { currentUser, serverCaller } from '@/server/api/rsc';
import { PageHeader } from '@/components/ui/page-header';
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
  const raw = (await params).id;
  if (!/^\d{1,15}$/.test(raw)) notFound();
  let d;
  try {
    d = await (await serverCaller()).executions.get({ id: Number(raw) });
  } catch (e) {
    if (e instanceof TRPCError && (e.code === 'NOT_FOUND' || e.code === 'BAD_REQUEST')) notFound();
    throw e;
  }
  return (
    <>
      <nav className="mb-2 text-[12px] text-muted">
        <Link href="/executions" className="hover:underline">
          Executions
        </Link>{' '}
        / {d.id}
      </nav>
      <PageHeader
        title={`Execution ${d.id}`}
        description={
          <span className="inline-flex flex-wrap items-center gap-2">
            <span className="font-mono">{d.task}</span>
            <ExecutionStateBadge state={d.displayState} />
            <span>enqueued</span>
            <Timestamp date={d.enqueuedAt} />
            <span>
              · {d.attempts} attempt{d.attempts === 1 ? '' : 's'}
            </span>
          </span>
        }
        actions={
          <ExecutionActions
            id={d.id}
            displayState={d.displayState}
            canAct={roleAtLeast(user.role, 'operator')}
            cancelRequested={d.state === 'running' && d.cancelRequestedAt !== null}
          />
        }
      />
      <ExecutionDetailView d={d} />
    </>
  );
}
