import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { currentUser, getQueryClient, trpc, HydrateClient } from '@/server/api/rsc';
import { roleAtLeast } from '@/server/core/roles';
import { CoordinatorsTable } from '@/components/coordinators/coordinators-table';
import { GuardPanel } from '@/components/config/guard-panel';
import { PageHeader } from '@/components/ui/page-header';

export const metadata: Metadata = { title: 'Coordinators' };

export default async function CoordinatorsPage() {
  const user = await currentUser();
  if (!user) redirect('/login');
  await Promise.all([getQueryClient().prefetchQuery(trpc.coordinators.list.queryOptions()), getQueryClient().prefetchQuery(trpc.config.guards.queryOptions({ limit: 5 }))]);
  return (
    <HydrateClient>
      <PageHeader title="Coordinators" description="Running coordinator processes, their partitions and the config version each one runs." />
      <GuardPanel canEdit={roleAtLeast(user.role, 'operator')} />
      <CoordinatorsTable canEdit={roleAtLeast(user.role, 'operator')} />
    </HydrateClient>
  );
}
