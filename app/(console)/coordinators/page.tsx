import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { currentUser, getQueryClient, trpc, HydrateClient } from '@/server/api/rsc';
import { roleAtLeast } from '@/server/core/roles';
import { CoordinatorsTable } from '@/components/coordinators/coordinators-table';
import { PageHeader } from '@/components/ui/page-header';

export const metadata: Metadata = { title: 'Coordinators' };

export default async function CoordinatorsPage() {
  const user = await currentUser();
  if (!user) redirect('/login');
  await getQueryClient().prefetchQuery(trpc.coordinators.list.queryOptions());
  return (
    <HydrateClient>
      <PageHeader title="Coordinators" description="Running coordinator processes, their partitions and the config version each one runs." />
      <CoordinatorsTable canEdit={roleAtLeast(user.role, 'operator')} />
    </HydrateClient>
  );
}
