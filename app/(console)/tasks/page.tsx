import type { Metadata } from 'next';
import { PageHeader } from '@/components/ui/page-header';
import { Panel } from '@/components/ui/panel';
import { Command, EmptyState } from '@/components/ui/empty-state';

export const metadata: Metadata = { title: 'Tasks' };

export default function TasksPage() {
  return (
    <>
      <PageHeader title="Tasks" description="Task definitions, limits, routing and backpressure." />
      <Panel>
        <EmptyState title="No tasks yet">
          Apply a config with <Command>npx sluice config apply sluice.yaml</Command> and its tasks appear here.
        </EmptyState>
      </Panel>
    </>
  );
}
