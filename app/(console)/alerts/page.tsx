import type { Metadata } from 'next';
import { PageHeader } from '@/components/ui/page-header';
import { Panel } from '@/components/ui/panel';
import { EmptyState } from '@/components/ui/empty-state';

export const metadata: Metadata = { title: 'Alerts' };

export default function AlertsPage() {
  return (
    <>
      <PageHeader title="Alerts" description="Threshold breaches and hot partitions, to acknowledge, silence or resolve." />
      <Panel>
        <EmptyState title="No alerts">Alerts are raised when a metric crosses a task&apos;s warning or critical threshold.</EmptyState>
      </Panel>
    </>
  );
}
