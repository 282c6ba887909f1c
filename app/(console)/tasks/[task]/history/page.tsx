import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound, redirect } from 'next/navigation';
import { currentUser, getQueryClient, trpc, HydrateClient } from '@/server/api/rsc';
import { roleAtLeast } from '@/server/core/roles';
import { TASK_NAME_RE } from '@/server/core/task-definition';
import { HistoryList } from '@/components/config/history-list';
import { GuardPanel } from '@/components/config/guard-panel';
import { PageHeader } from '@/components/ui/page-header';
import { Panel } from '@/components/ui/panel';
import { buttonClass } from '@/components/ui/button';

type Props = { params: Promise<{ task: string }>; searchParams: Promise<{ before?: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return { title: `History · ${decodeURIComponent((await params).task)}` };
}

export default async function TaskHistoryPage({ params, searchParams }: Props) {
  const user = await currentUser();
  if (!user) redirect('/login');
  const task = decodeURIComponent((await params).task);
  if (!TASK_NAME_RE.test(task)) notFound();
  const b = Number((await searchParams).before);
  const before = Number.isInteger(b) && b > 0 ? b : undefined;
  await Promise.all([
    getQueryClient().prefetchQuery(trpc.config.history.queryOptions({ task, ...(before ? { before } : {}) })),
    getQueryClient().prefetchQuery(trpc.config.guards.queryOptions({ task, limit: 5 })),
  ]);
  return (
    <HydrateClient>
      <PageHeader
        title={`History of ${task}`}
        description="Versions that changed this task, with what they changed. Reverting restores only this task as it was in that version; other tasks keep their current definitions (roll back the whole config from All versions)."
        actions={
          <>
            <Link href={`/tasks/${encodeURIComponent(task)}`} className={buttonClass('secondary')}>
              Edit task
            </Link>
            <Link href="/config/history" className={buttonClass('secondary')}>
              All versions
            </Link>
          </>
        }
      />
      <GuardPanel task={task} canEdit={roleAtLeast(user.role, 'operator')} />
      <Panel>
        <HistoryList task={task} before={before} canEdit={roleAtLeast(user.role, 'operator')} />
      </Panel>
    </HydrateClient>
  );
}
