import type { Metadata } from 'next';
import { PageHeader } from '@/components/ui/page-header';
import { Panel } from '@/components/ui/panel';
import { Command, EmptyState } from '@/components/ui/empty-state';

export const metadata: Metadata = { title: 'Coordinators' };

export default function CoordinatorsPage() {
  return (
    <>
      <PageHeader title="Coordinators" description="Running coordinator processes, their partitions and config versions." />
      <Panel>
        <EmptyState title="No coordinators have registered">
          Start one against this database with <Command>npx sluice coordinator</Command>; it shows up here once it heartbeats.
        </EmptyState>
      </Panel>
    </>
  );
}
