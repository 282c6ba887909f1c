import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { currentUser, getQueryClient, trpc, HydrateClient } from '@/server/api/rsc';
import { roleAtLeast } from '@/server/core/roles';
import { Panel } from '@/components/ui/panel';
import { EmptyState } from '@/components/ui/empty-state';
import { WebhooksPanel } from '@/components/webhooks/webhooks-panel';

export const metadata: Metadata = { title: 'Webhooks' };

export default async function WebhooksPage() {
  const user = await currentUser();
  if (!user) redirect('/login');
  if (!roleAtLeast(user.role, 'operator')) {
    return (
      <Panel>
        <EmptyState title="Webhooks need the operator role">You are signed in as a viewer.</EmptyState>
      </Panel>
    );
  }
  const qc = getQueryClient();
  await Promise.all([qc.prefetchQuery(trpc.webhooks.list.queryOptions()), qc.prefetchQuery(trpc.webhooks.deliveries.queryOptions({ limit: 50 }))]);
  return (
    <HydrateClient>
      <WebhooksPanel canEdit={user.role === 'admin'} />
    </HydrateClient>
  );
}
