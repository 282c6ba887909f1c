import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound, redirect } from 'next/navigation';
import { currentUser, getQueryClient, trpc, HydrateClient } from '@/server/api/rsc';
import { TASK_NAME_RE } from '@/server/core/task-definition';
import { keysViewHref, streamsViewHref } from '@/server/core/key-views';
import { PageHeader } from '@/components/ui/page-header';
import { buttonClass } from '@/components/ui/button';
import { TaskMetricsView } from '@/components/overview/task-metrics-view';
import { OpenAlerts } from '@/components/alerts/open-alerts';
import { parseRange } from '@/components/overview/overview-search-params';

type Props = { params: Promise<{ task: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return { title: `Metrics · ${decodeURIComponent((await params).task)}` };
}

export default async function TaskMetricsPage({ params, searchParams }: Props) {
  const user = await currentUser();
  if (!user) redirect('/login');
  const task = decodeURIComponent((await params).task);
  if (!TASK_NAME_RE.test(task)) notFound();
  const sp = await searchParams;
  const range = parseRange(Array.isArray(sp.range) ? sp.range[0] : sp.range);
  const qc = getQueryClient();
  await Promise.all([
    qc.prefetchQuery(trpc.metrics.taskCharts.queryOptions({ task, range })),
    qc.prefetchQuery(trpc.metrics.taskPartitions.queryOptions({ task })),
  ]);
  if (qc.getQueryState(trpc.metrics.taskPartitions.queryKey({ task }))?.status === 'error') notFound();
  return (
    <HydrateClient>
      <PageHeader
        title={`Metrics of ${task}`}
        description="Charts against the task's thresholds, and each partition's depth, rates, owner and drain-time forecast."
        actions={
          <>
            <Link href={`/tasks/${encodeURIComponent(task)}`} className={buttonClass('secondary')}>
              Edit task
            </Link>
            <Link href={keysViewHref(task)} className={buttonClass('secondary')}>
              Keys
            </Link>
            <Link href={streamsViewHref(task)} className={buttonClass('secondary')}>
              Streams
            </Link>
            <Link href={`/alerts?task=${encodeURIComponent(task)}&status=all`} className={buttonClass('secondary')}>
              Alerts
            </Link>
          </>
        }
      />
      <div className="mb-4">
        <OpenAlerts task={task} />
      </div>
      <TaskMetricsView task={task} />
    </HydrateClient>
  );
}
