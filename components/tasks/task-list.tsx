'use client';
// The Tasks list: each task of the current config version with its limits, groups,
// partitions, routing and backpressure, next to its live counters (refreshed every few
// seconds). Operators pause / resume from here.
import { useSuspenseQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useTRPC } from '@/components/trpc/trpc-provider';
import { Badge } from '@/components/ui/badge';
import { buttonClass } from '@/components/ui/button';
import { Command, EmptyState } from '@/components/ui/empty-state';
import { PageHeader } from '@/components/ui/page-header';
import { Panel } from '@/components/ui/panel';
import { Table, Td, Th, Tr } from '@/components/ui/table';
import { Timestamp } from '@/components/ui/timestamp';
import { cx } from '@/components/ui/class-names';
import { PauseToggle } from './pause-toggle';

const n = (x: number) => x.toLocaleString('en-US');

export function TaskList({ canEdit }: { canEdit: boolean }) {
  const trpc = useTRPC();
  const { data } = useSuspenseQuery({ ...trpc.tasks.list.queryOptions(), refetchInterval: 3000 });
  return (
    <>
      <PageHeader
        title="Tasks"
        description={
          data.version === null ? (
            'No config has been applied yet.'
          ) : (
            <>
              Config version <span className="font-mono">{data.version}</span> by {data.author}, <Timestamp date={data.createdAt} /> UTC
            </>
          )
        }
        actions={
          <>
            <Link href="/config/history" className={buttonClass('secondary')}>
              History
            </Link>
            <a href="/api/config/export" className={buttonClass('secondary')} download>
              Download YAML
            </a>
            {canEdit && (
              <Link href="/tasks/new" className={buttonClass('primary')}>
                New task
              </Link>
            )}
          </>
        }
      />
      <Panel>
        {data.tasks.length === 0 ? (
          <EmptyState title="No tasks yet">
            {canEdit ? (
              <>
                Create one with <Link href="/tasks/new" className="underline">New task</Link>, or apply a file with{' '}
                <Command>npx sluice config apply sluice.yaml</Command>.
              </>
            ) : (
              <>
                Apply a config with <Command>npx sluice config apply sluice.yaml</Command> and its tasks appear here.
              </>
            )}
          </EmptyState>
        ) : (
          <Table aria-label="Tasks">
            <thead>
              <tr>
                <Th>Task</Th>
                <Th>Status</Th>
                <Th className="text-right">Running</Th>
                <Th className="text-right">Queued</Th>
                <Th>Groups</Th>
                <Th className="text-right">Partitions</Th>
                <Th>Routing</Th>
                <Th>Backpressure</Th>
                {canEdit && <Th className="text-right">Actions</Th>}
              </tr>
            </thead>
            <tbody>
              {data.tasks.map((t) => (
                <Tr key={t.name} data-task={t.name}>
                  <Td>
                    <Link href={`/tasks/${encodeURIComponent(t.name)}`} className="font-mono font-medium text-accent hover:underline">
                      {t.name}
                    </Link>
                    {t.description && <div className="max-w-56 truncate text-[12px] text-muted" title={t.description}>{t.description}</div>}
                  </Td>
                  <Td>{t.paused ? <Badge tone="warning">paused</Badge> : <Badge tone="success">running</Badge>}</Td>
                  <Td className="text-right font-mono tabular-nums">
                    {n(t.load.inFlight)}
                    <span className="text-subtle"> / {n(t.concurrency)}</span>
                  </Td>
                  <Td className="text-right font-mono tabular-nums">
                    {n(t.load.depth)}
                    {t.load.spilled > 0 && <div className="text-[11px] whitespace-nowrap text-warning">{n(t.load.spilled)} spilled</div>}
                  </Td>
                  <Td className="text-[12px]">
                    {t.groups.length === 0 ? (
                      <span className="text-subtle">—</span>
                    ) : (
                      <ul className="flex flex-col gap-0.5">
                        {t.groups.map((g) => (
                          <li key={g.name} className="whitespace-nowrap">
                            <span className="font-mono">{g.name}</span> ≤ {n(g.limit)}
                            {g.overrides > 0 && (
                              <span className="text-muted">
                                {' '}
                                · {g.overrides} override{g.overrides === 1 ? '' : 's'}
                              </span>
                            )}
                          </li>
                        ))}
                      </ul>
                    )}
                  </Td>
                  <Td
                    className={cx('text-right font-mono tabular-nums', t.load.ownedPartitions < t.partitions && 'text-warning')}
                    title={`${t.load.ownedPartitions} of ${t.partitions} partitions owned by a live coordinator`}
                  >
                    {t.load.ownedPartitions}/{t.partitions}
                  </Td>
                  <Td className="text-[12px] whitespace-nowrap">
                    {t.routing.strategy}
                    {t.routing.keyPath && <span className="font-mono text-muted"> ({t.routing.keyPath})</span>}
                    {t.streamKeyPath && (
                      <div className="text-muted">
                        stream <span className="font-mono">{t.streamKeyPath}</span>
                      </div>
                    )}
                  </Td>
                  <Td className="text-[12px] whitespace-nowrap">
                    {t.backpressure.policy} <span className="text-muted">@ {n(t.backpressure.maxDepth)}</span>
                    <div className="font-mono text-muted tabular-nums" title="timeout · max attempts">
                      {n(t.timeoutMs)} ms · {t.maxAttempts} tries
                    </div>
                  </Td>
                  {canEdit && (
                    <Td className="text-right">
                      <PauseToggle task={t.name} paused={t.paused} />
                    </Td>
                  )}
                </Tr>
              ))}
            </tbody>
          </Table>
        )}
      </Panel>
    </>
  );
}
