import type { Metadata } from 'next';
import Link from 'next/link';
import { getQueryClient, serverCaller, trpc, HydrateClient } from '@/server/api/rsc';
import { PageHeader } from '@/components/ui/page-header';
import { Panel } from '@/components/ui/panel';
import { AuditTable } from '@/components/audit/audit-table';
import { OverviewView } from '@/components/overview/overview-view';
import { overviewParams, overviewQueryInput } from '@/components/overview/overview-search-params';

export const metadata: Metadata = { title: 'Overview' };

type SearchParams = Record<string, string | string[] | undefined>;

export default async function OverviewPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const sp = await searchParams;
  const params = overviewParams((k) => {
    const v = sp[k];
    return Array.isArray(v) ? v[0] : v;
  });
  // Prefetch what the client view asks for first, so the page paints with data.
  await getQueryClient().prefetchQuery(trpc.metrics.overview.queryOptions(overviewQueryInput(params)));
  const recent = await (await serverCaller()).audit.list({ limit: 8 });
  return (
    <>
      <PageHeader title="Overview" description="Fleet health, each task against its thresholds, and the charts of the task you pick." />
      <HydrateClient>
        <OverviewView />
      </HydrateClient>
      <div className="mt-4">
        <Panel
          title="Recent activity"
          labelledBy="overview-activity"
          actions={
            <Link href="/audit" className="text-[12px] text-accent hover:underline">
              Full audit log →
            </Link>
          }
        >
          <AuditTable entries={recent.entries} compact />
        </Panel>
      </div>
    </>
  );
}
