// One dead letter in full, with replay / purge for operators.
import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { currentUser, serverCaller } from '@/server/api/rsc';
import { roleAtLeast } from '@/server/core/roles';
import { DetailPageHeader, detailOr404 } from '@/components/ui/detail-page-header';
import { Badge } from '@/components/ui/badge';
import { Timestamp } from '@/components/ui/timestamp';
import { DeadLetterDetail } from '@/components/dead-letters/dead-letter-detail';
import { DeadLetterActions } from '@/components/dead-letters/dead-letter-actions';

type Params = { params: Promise<{ id: string }> };

export async function generateMetadata({ params }: Params): Promise<Metadata> {
  return { title: `Dead letter ${(await params).id}` };
}

export default async function DeadLetterPage({ params }: Params) {
  const user = await currentUser();
  if (!user) redirect('/login');
  const d = await detailOr404((await params).id, async (id) => (await serverCaller()).deadLetters.get({ id }));
  return (
    <>
      <DetailPageHeader
        list={{ label: 'Dead letters', href: '/dead-letters' }}
        id={d.id}
        title={`Dead letter ${d.id}`}
        task={d.task}
        actions={roleAtLeast(user.role, 'operator') ? <DeadLetterActions id={d.id} replayed={d.replayedAt !== null} /> : undefined}
      >
        <span>· dead</span>
        <Timestamp date={d.deadAt} />
        <span>after {d.attempts} attempt{d.attempts === 1 ? '' : 's'}</span>
        {d.replayedAt ? <Badge tone="success">replayed → {d.replayExecutionId}</Badge> : <Badge tone="warning">not replayed</Badge>}
      </DetailPageHeader>
      <DeadLetterDetail d={d} />
    </>
  );
}
