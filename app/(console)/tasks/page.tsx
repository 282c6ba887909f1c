import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { currentUser, getQueryClient, trpc, HydrateClient } from '@/server/api/rsc';
import { roleAtLeast } from '@/server/core/roles';
import { TaskList } from '@/components/tasks/task-list';
import { Callout } from '@/components/ui/callout';

export const metadata: Metadata = { title: 'Tasks' };

export default async function TasksPage({ searchParams }: { searchParams: Promise<{ deleted?: string; version?: string }> }) {
  const user = await currentUser();
  if (!user) redirect('/login');
  const sp = await searchParams;
  await getQueryClient().prefetchQuery(trpc.tasks.list.queryOptions());
  return (
    <HydrateClient>
      {sp.deleted && (
        <Callout tone="success" className="mb-3">
          Deleted <span className="font-mono">{sp.deleted}</span>
          {sp.version && <> in config version {sp.version}</>}.
        </Callout>
      )}
      <TaskList canEdit={roleAtLeast(user.role, 'operator')} />
    </HydrateClient>
  );
}
