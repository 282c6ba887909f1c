import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { currentUser, getQueryClient, trpc, HydrateClient } from '@/server/api/rsc';
import { FleetDefaultsPanel } from '@/components/config/fleet-defaults-panel';

export const metadata: Metadata = { title: 'Defaults' };

export default async function DefaultsPage() {
  const user = await currentUser();
  if (!user) redirect('/login');
  await getQueryClient().prefetchQuery(trpc.defaults.get.queryOptions());
  return (
    <HydrateClient>
      <FleetDefaultsPanel canEdit={user.role === 'admin'} />
    </HydrateClient>
  );
}
