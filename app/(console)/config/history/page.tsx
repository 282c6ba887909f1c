import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { currentUser, getQueryClient, trpc, HydrateClient } from '@/server/api/rsc';
import { roleAtLeast } from '@/server/core/roles';
import { HistoryList } from '@/components/config/history-list';
import { PageHeader } from '@/components/ui/page-header';
import { Panel } from '@/components/ui/panel';
import { buttonClass } from '@/components/ui/button';

export const metadata: Metadata = { title: 'Config history' };

export default async function ConfigHistoryPage({ searchParams }: { searchParams: Promise<{ before?: string }> }) {
  const user = await currentUser();
  if (!user) redirect('/login');
  const b = Number((await searchParams).before);
  const before = Number.isInteger(b) && b > 0 ? b : undefined;
  await getQueryClient().prefetchQuery(trpc.config.history.queryOptions(before ? { before } : {}));
  return (
    <HydrateClient>
      <PageHeader
        title="Config history"
        description="Every version, newest first: who applied it, why, and what changed. A rollback adds a new version; nothing is rewritten."
        actions={
          <a href="/api/config/export" className={buttonClass('secondary')} download>
            Download current YAML
          </a>
        }
      />
      <Panel>
        <HistoryList before={before} canEdit={roleAtLeast(user.role, 'operator')} />
      </Panel>
    </HydrateClient>
  );
}
