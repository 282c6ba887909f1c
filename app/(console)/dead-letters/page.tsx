import type { Metadata } from 'next';
import { PageHeader } from '@/components/ui/page-header';
import { Panel } from '@/components/ui/panel';
import { EmptyState } from '@/components/ui/empty-state';

export const metadata: Metadata = { title: 'Dead letters' };

export default function DeadLettersPage() {
  return (
    <>
      <PageHeader title="Dead letters" description="Executions that failed their last attempt, to replay or purge." />
      <Panel>
        <EmptyState title="No dead letters">
          An execution lands here after its last retry fails, with its error and payload.
        </EmptyState>
      </Panel>
    </>
  );
}
