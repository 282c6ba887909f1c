// One dead letter in full, with replay / purge for operators.
import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound, redirect } from 'next/navigation';
import { TRPCError } from '@trpc/server';
import { currentUser, serverCaller } from '@/server/api/rsc';
import { roleAtLeast } from '@/server/core/roles';
import { PageHeader } from '@/components/ui/page-header';
import { Badge } from '@/components/ui/badge';
import { Timestamp } from '@/components/ui/timestamp';
import { DeadLetterDetail } from '@/components/dlq/dead-letter-detail';
import { DeadLetterActions } from '@/components/dlq/dead-letter-actions';

type Params = { params: Promise<{ id: string }> };

export async function generateMetadata({ params }: Params): Promise<Metadata> {
  return { title: `Dead letter ${(await params).id}` };
}

export default async function DeadLetterPage({ params }: Params) {
  const user = await currentUser();
  if (!user) redirect('/login');
  const raw = (await params).id;
  if (!/^\d{1,15}$/.test(raw)) notFound();
  let d;
  try {
    d = await (await serverCaller()).dlq.get({ id: Number(raw) });
  } catch (e) {
    if (e instanceof TRPCError && (e.code === 'NOT_FOUND' || e.code === 'BAD_REQUEST')) notFound();
    throw e;
  }
  return (
    <>
      <nav className="mb-2 text-[12px] text-muted">
        <Link href="/dead-letters" className="hover:underline">
          Dead letters
        </Link>{' '}
        / {d.id}
      </nav>
      <PageHeader
        title={`Dead letter ${d.id}`}
        description={
          <span className="inline-flex flex-wrap items-center gap-2">
            <span className="font-mono">{d.task}</span>
            <span>· dead</span>
            <Timestamp date={d.deadAt} />
            <span>after {d.attempts} attempt{d.attempts === 1 ? '' : 's'}</span>
            {d.replayedAt ? (
              <Badge tone="success">replayed → {d.replayExecutionId}</Badge>
            ) : (
              <Badge tone="warning">not replayed</Badge>
            )}
          </span>
        }
        actions={roleAtLeast(user.role, 'operator') ? <DeadLetterActions id={d.id} replayed={d.replayedAt !== null} /> : undefined}
      />
      <DeadLetterDetail d={d} />
    </>
  );
}
