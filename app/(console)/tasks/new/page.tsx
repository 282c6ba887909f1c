import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { currentUser, getQueryClient, trpc, HydrateClient } from '@/server/api/rsc';
import { roleAtLeast } from '@/server/core/roles';
import { CreateTask } from '@/components/tasks/task-editor';

export const metadata: Metadata = { title: 'New task' };

export default async function NewTaskPage() {
  const user = await currentUser();
  if (!user) redirect('/login');
  if (!roleAtLeast(user.role, 'operator')) redirect('/tasks');
  const qc = getQueryClient();
  await Promise.all([qc.prefetchQuery(trpc.tasks.list.queryOptions()), qc.prefetchQuery(trpc.defaults.get.queryOptions())]);
  return (
    <HydrateClient>
      <CreateTask canEdit />
    </HydrateClient>
  );
}
