import type { Metadata } from 'next';
import Link from 'next/link';
import { serverCaller } from '@/server/api/rsc';
import { PageHeader } from '@/components/ui/page-header';
import { Panel } from '@/components/ui/panel';
import { Command, EmptyState } from '@/components/ui/empty-state';
import { AuditTable } from '@/components/audit/audit-table';

export const metadata: Metadata = { title: 'Overview' };

export default async function OverviewPage() {
  const recent = await (await serverCaller()).audit.list({ limit: 8 });
  return (
    <>
      <PageHeader title="Overview" description="Throughput, depth and health across tasks." />
      <div className="flex flex-col gap-4">
        <Panel title="Tasks" labelledBy="overview-tasks">
          <EmptyState title="No tasks yet">
            Apply a config with <Command>npx sluice config apply sluice.yaml</Command> to start running work.
          </EmptyState>
        </Panel>
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
