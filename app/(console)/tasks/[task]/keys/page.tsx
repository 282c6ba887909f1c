import type { Metadata } from 'next';
import { notFound, redirect } from 'next/navigation';
import { currentUser, getQueryClient, trpc, HydrateClient } from '@/server/api/rsc';
import { roleAtLeast } from '@/server/core/roles';
import { TASK_NAME_RE } from '@/server/core/task-definition';
import { taskKeysInput } from '@/server/core/key-views';
import { TaskViewLinks } from '@/components/keys/task-view-links';
import { PageHeader } from '@/components/ui/page-header';
import { Callout } from '@/components/ui/callout';
import { KeysView } from '@/components/keys/keys-view';

type Props = { params: Promise<{ task: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return { title: `Keys · ${decodeURIComponent((await params).task)}` };
}

export default async function TaskKeysPage({ params, searchParams }: Props) {
  const user = await currentUser();
  if (!user) redirect('/login');
  const task = decodeURIComponent((await params).task);
  if (!TASK_NAME_RE.test(task)) notFound();
  const sp = await searchParams;
  const asked = { task, group: one(sp.group), key: one(sp.key), after: one(sp.after) };
  // A malformed parameter (hand-edited URL) is dropped rather than failing the page.
  const parsed = taskKeysInput.safeParse(Object.fromEntries(Object.entries(asked).filter(([, v]) => v !== undefined)));
  const input = parsed.success ? parsed.data : { task };
  const group = 'group' in input && input.group ? input.group : null;
  const key = 'key' in input && input.key ? input.key : null;
  const after = 'after' in input && input.after ? input.after : null;
  const qc = getQueryClient();
  const queryInput = { task, ...(group ? { group } : {}), ...(key ? { key } : {}), ...(after ? { after } : {}) };
  await qc.prefetchQuery(trpc.taskLoad.keys.queryOptions(queryInput));
  const state = qc.getQueryState(trpc.taskLoad.keys.queryKey(queryInput));
  if (state?.status === 'error' && (state.error as { data?: { code?: string } } | null)?.data?.code === 'NOT_FOUND') notFound();
  return (
    <HydrateClient>
      <PageHeader
        title={`Keys of ${task}`}
        description="Each concurrency-group key: running of its limit, queued, how long its oldest work has waited, and how fast it finishes."
        actions={<TaskViewLinks task={task} current="keys" />}
      />
      {!parsed.success && <Callout tone="warning" className="mb-3">Some of the address&apos;s parameters were not valid and were ignored.</Callout>}
      <KeysView task={task} group={group} focusKey={key} after={after} canEdit={roleAtLeast(user.role, 'operator')} />
    </HydrateClient>
  );
}
