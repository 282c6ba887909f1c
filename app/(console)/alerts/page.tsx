import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { currentUser, getQueryClient, trpc, HydrateClient } from '@/server/api/rsc';
import { roleAtLeast } from '@/server/core/roles';
import { PageHeader } from '@/components/ui/page-header';
import { AlertsView } from '@/components/alerts/alerts-view';
import { alertListQueryInput, alertParams } from '@/components/alerts/alert-search-params';

export const metadata: Metadata = { title: 'Alerts' };

type SearchParams = Record<string, string | string[] | undefined>;

export default async function AlertsPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const user = await currentUser();
  if (!user) redirect('/login');
  const sp = await searchParams;
  const p = alertParams((k) => {
    const v = sp[k];
    return Array.isArray(v) ? v[0] : v;
  });
  const qc = getQueryClient();
  await qc.prefetchQuery(trpc.alerts.list.queryOptions(alertListQueryInput(p)));
  if (p.alert) await qc.prefetchQuery(trpc.alerts.get.queryOptions({ id: p.alert }));
  return (
    <>
      <PageHeader title="Alerts" description="Threshold breaches, hot partitions and hot keys — with their evidence, to acknowledge, silence or resolve." />
      <HydrateClient>
        <AlertsView canAct={roleAtLeast(user.role, 'operator')} />
      </HydrateClient>
    </>
  );
}
