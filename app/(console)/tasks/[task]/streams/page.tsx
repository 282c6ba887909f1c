import type { Metadata } from 'next';
import { notFound, redirect } from 'next/navigation';
import { currentUser, getQueryClient, trpc, HydrateClient } from '@/server/api/rsc';
import { TASK_NAME_RE } from '@/server/core/task-definition';
import { TaskViewLinks } from '@/components/keys/task-view-links';
import { PageHeader } from '@/components/ui/page-header';
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
  return (
    <HydrateClient>
      <PageHeader
        title={`Streams of ${task}`}
        description="Streams run one execution at a time, in order. A head that fails and retries holds everything behind it."
        actions={<TaskViewLinks task={task} current="streams" />}
      />
      <StreamsView task={task} after={after} />
    </HydrateClient>
  );
}
