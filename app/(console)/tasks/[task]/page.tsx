import type { Metadata } from 'next';
import { notFound, redirect } from 'next/navigation';
import { currentUser, getQueryClient, trpc, HydrateClient } from '@/server/api/rsc';
import { roleAtLeast } from '@/server/core/roles';
import { TASK_NAME_RE } from '@/server/core/task-definition';
import { EditTask } from '@/components/tasks/task-editor';

type Params = { params: Promise<{ task: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

export async function generateMetadata({ params }: Params): Promise<Metadata> {
  return { title: decodeURIComponent((await params).task) };
}

export default async function TaskPage({ params, searchParams }: Params) {
  const user = await currentUser();
  if (!user) redirect('/login');
  const name = decodeURIComponent((await params).task);
  if (!TASK_NAME_RE.test(name)) notFound();
  const qc = getQueryClient();
  await Promise.all([
    qc.prefetchQuery(trpc.tasks.get.queryOptions({ name })),
    qc.prefetchQuery(trpc.tasks.breaker.queryOptions({ name })),
    qc.prefetchQuery(trpc.defaults.get.queryOptions()),
  ]);
  if (qc.getQueryState(trpc.tasks.get.queryKey({ name }))?.status === 'error') notFound();
  // ?override=group=key (the Keys view's "Add override"): the draft starts with that row.
  const override = (await searchParams).override;
  return (
    <HydrateClient>
      <EditTask name={name} canEdit={roleAtLeast(user.role, 'operator')} overrideParam={(Array.isArray(override) ? override[0] : override) ?? null} />
    </HydrateClient>
  );
}
