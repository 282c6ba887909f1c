'use client';
// The Tasks list: each task of the current config version with its limits, groups,
// partitions, routing and backpressure, next to its live counters (refreshed every few
// seconds). Operators pause / resume from here. A table on a wide screen, one card per
// task on a phone (CardsOnPhone).
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
import { Card, CardFields, CardHead, CardsOnPhone } from '@/components/ui/card-list';
import type { TaskSummary } from '@/server/presenters/tasks';
import { PauseToggle } from './pause-toggle';

const n = (x: number) => x.toLocaleString('en-US');

type TaskRow = TaskSummary;

function TaskName({ t }: { t: TaskRow }) {
  return (
    <Link href={`/tasks/${encodeURIComponent(t.name)}`} className="font-mono font-medium break-all text-accent hover:underline">
      {t.name}
    </Link>
  );
}

function TaskStatus({ t }: { t: TaskRow }) {
  return t.paused ? <Badge tone="warning">paused</Badge> : <Badge tone="success">running</Badge>;
}

function Running({ t }: { t: TaskRow }) {
  return (
    <span className="font-mono tabular-nums">
      {n(t.load.inFlight)}
      <span className="text-subtle"> / {n(t.concurrency)}</span>
    </span>
  );
}

function Queued({ t }: { t: TaskRow }) {
  return (
    <span className="font-mono tabular-nums">
      {n(t.load.depth)}
      {t.load.spilled > 0 && <span className="block text-[11px] whitespace-nowrap text-warning">{n(t.load.spilled)} spilled</span>}
    </span>
  );
}

function Partitions({ t }: { t: TaskRow }) {
  return (
    <span
      className={cx('font-mono tabular-nums', t.load.ownedPartitions < t.partitions && 'text-warning')}
      title={`${t.load.ownedPartitions} of ${t.partitions} partitions owned by a live coordinator`}
    >
      {t.load.ownedPartitions}/{t.partitions}
    </span>
  );
}

function Groups({ t }: { t: TaskRow }) {
  if (t.groups.length === 0) return <span className="text-subtle">—</span>;
  return (
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
  );
}

function Routing({ t }: { t: TaskRow }) {
  return (
    <>
      {t.routing.strategy}
      {t.routing.keyPath && <span className="font-mono text-muted"> ({t.routing.keyPath})</span>}
      {t.streamKeyPath && (
        <div className="text-muted">
          stream <span className="font-mono">{t.streamKeyPath}</span>
        </div>
      )}
    </>
  );
}

function Backpressure({ t }: { t: TaskRow }) {
  return (
    <>
      {t.backpressure.policy} <span className="text-muted">@ {n(t.backpressure.maxDepth)}</span>
      <div className="font-mono text-muted tabular-nums" title="timeout · max attempts">
        {n(t.timeoutMs)} ms · {t.maxAttempts} tries
      </div>
    </>
  );
}

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
          <CardsOnPhone
            label="Tasks"
            testId="task-list-cards"
            cards={data.tasks.map((t) => (
              <Card key={t.name} data-testid={`task-list-card-${t.name}`}>
                <CardHead>
                  <TaskName t={t} />
                  <TaskStatus t={t} />
                </CardHead>
                {t.description && <p className="line-clamp-2 text-muted">{t.description}</p>}
                <CardFields
                  fields={[
                    { label: 'Running', value: <Running t={t} /> },
                    { label: 'Queued', value: <Queued t={t} /> },
                    { label: 'Partitions', value: <Partitions t={t} /> },
                    { label: 'Groups', value: <Groups t={t} /> },
                    { label: 'Routing', value: <Routing t={t} /> },
                    { label: 'Backpressure', value: <Backpressure t={t} /> },
                  ]}
                />
                {canEdit && (
                  <div className="pt-1">
                    <PauseToggle task={t.name} paused={t.paused} />
                  </div>
                )}
              </Card>
            ))}
          >
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
                      <TaskName t={t} />
                      {t.description && (
                        <div className="line-clamp-2 max-w-64 min-w-40 text-[12px] text-muted" title={t.description}>
                          {t.description}
                        </div>
                      )}
                    </Td>
                    <Td>
                      <TaskStatus t={t} />
                    </Td>
                    <Td className="text-right">
                      <Running t={t} />
                    </Td>
                    <Td className="text-right">
                      <Queued t={t} />
                    </Td>
                    <Td className="text-[12px]">
                      <Groups t={t} />
                    </Td>
                    <Td className="text-right">
                      <Partitions t={t} />
                    </Td>
                    <Td className="text-[12px] whitespace-nowrap">
                      <Routing t={t} />
                    </Td>
                    <Td className="text-[12px] whitespace-nowrap">
                      <Backpressure t={t} />
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
          </CardsOnPhone>
        )}
      </Panel>
    </>
  );
}
