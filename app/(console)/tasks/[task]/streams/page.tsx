import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound, redirect } from 'next/navigation';
import { currentUser, getQueryClient, trpc } from '@/server/api/rsc';
import { TASK_NAME_RE } from '@/server/core/task-definition';
import { keysViewHref } from '@/server/core/key-views';
import { HydrateClient } from '@/components/trpc/hydrate-client';
import { PageHeader } from '@/components/ui/page-header';
import { buttonClass } from '@/components/ui/button';
import { StreamsView } from '@/components/keys/streams-view';

type Props = { params: Promise<{ task: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return { title: `Streams · ${decodeURIComponent((await params).task)}` };
}

export default async function TaskStreamsPage({ params, searchParams }: Props) {
  const user = await currentUser();
  if (!user) redirect('/login');
  const task = decodeURIComponent((await params).task);
  if (!TASK_NAME_RE.test(task)) notFound();
  const raw = (await searchParams).after;
  const a = Array.isArray(raw) ? raw[0] : raw;
  const after = a && /^[1-9]\d{0,15}$/.test(a) ? Number(a) : null;
  const qc = getQueryClient();
  const input = { task, ...(after ? { after } : {}) };
  await qc.prefetchQuery(trpc.taskLoad.streams.queryOptions(input));
  const state = qc.getQueryState(trpc.taskLoad.streams.queryKey(input));
  if (state?.status === 'error' && (state.error as { data?: { code?: string } } | null)?.data?.code === 'NOT_FOUND') notFound();
  const t = encodeURIComponent(task);
  return (
    <HydrateClient>
      <PageHeader
        title={`Streams of ${task}`}
        description="Streams run one execution at a time, in order. A head that fails and retries holds everything behind it."
        actions={
          <>
            <Link href={`/tasks/${t}`} className={buttonClass('secondary')}>
              Edit task
            </Link>
            <Link href={`/tasks/${t}/metrics`} className={buttonClass('secondary')}>
              Metrics
            </Link>
            <Link href={keysViewHref(task)} className={buttonClass('secondary')}>
              Keys
            </Link>
          </>
        }
      />
      <StreamsView task={task} after={after} />
    </HydrateClient>
  );
}
