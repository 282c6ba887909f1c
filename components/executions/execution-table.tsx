// The executions list. Key columns first (id, state, task); group keys link to the same
// list filtered by that key. On a phone (below md) each row is a card instead (CardsOnPhone),
// so nothing scrolls sideways. Rendered on the server: plain links, no client code.
import Link from 'next/link';
import type { ExecutionListRow } from '@/server/presenters/execution';
import type { ExecutionFilter, ExecutionOrder } from '@/server/core/execution-filter';
import { EmptyState } from '@/components/ui/empty-state';
import { Table, Td, Th, Tr } from '@/components/ui/table';
import { Card, CardHead, CardsOnPhone } from '@/components/ui/card-list';
import { Timestamp } from '@/components/ui/timestamp';
import { ExecutionStateBadge } from './state-badge';
import { executionsHref } from './execution-search-params';

function Note({ r }: { r: ExecutionListRow }) {
  if (r.waitingOn) return <span className="text-warning">waits on {r.waitingOn}</span>;
  if (r.error) return <span className="text-danger" title={r.error}>{r.error}</span>;
  if (r.state === 'scheduled') return <span className="text-muted">runs at <Timestamp date={r.runAt} /></span>;
  if (r.state === 'blocked') return <span className="text-muted">behind its stream&apos;s head</span>;
  return null;
}

/** A row's group keys and stream key, each linking to the list filtered by it. */
function KeyLinks({ r, filter, order }: { r: ExecutionListRow; filter: ExecutionFilter; order: ExecutionOrder }) {
  return (
    <>
      {Object.entries(r.groups).map(([g, k]) => (
        <Link key={g} href={executionsHref({ ...filter, group: `${g}=${k}` }, { order })} className="break-all text-muted hover:text-fg hover:underline">
          {g}={k}
        </Link>
      ))}
      {r.streamKey && (
        <Link href={executionsHref({ ...filter, stream: r.streamKey }, { order })} className="break-all text-muted hover:text-fg hover:underline">
          stream {r.streamKey}
        </Link>
      )}
    </>
  );
}

export function ExecutionTable({ items, filter, order }: { items: ExecutionListRow[]; filter: ExecutionFilter; order: ExecutionOrder }) {
  // Filtered by a task, every row has it: the column would only push the keys off a phone's screen.
  const showTask = filter.task === undefined;
  if (items.length === 0) {
    return (
      <EmptyState title="No executions match">
        Try a wider filter, or search older ids below when the page says it searched only part of the table.
      </EmptyState>
    );
  }
  return (
    <CardsOnPhone
      label="Executions"
      testId="execution-cards"
      cards={items.map((r) => (
        <Card key={r.id} data-testid={`execution-card-${r.id}`}>
          <CardHead>
            <Link href={`/executions/${r.id}`} className="font-mono text-[13px] text-accent hover:underline">
              #{r.id}
            </Link>
            <ExecutionStateBadge state={r.state} />
          </CardHead>
          <div className="flex flex-wrap items-center gap-x-2 font-mono text-muted">
            {showTask && (
              <Link href={executionsHref({ ...filter, task: r.task }, { order })} className="text-fg hover:underline">
                {r.task}
              </Link>
            )}
            <span className="text-subtle">p{r.partition}</span>
            <span className="text-subtle">· {r.attempts} {r.attempts === 1 ? 'try' : 'tries'}</span>
            <KeyLinks r={r} filter={filter} order={order} />
          </div>
          <div className="text-muted">
            <Timestamp date={r.enqueuedAt} />
            {r.finishedAt && (
              <>
                {' → '}
                <Timestamp date={r.finishedAt} />
              </>
            )}
          </div>
          <div className="min-w-0 truncate">
            <Note r={r} />
          </div>
        </Card>
      ))}
    >
    <Table aria-label="Executions">
      <thead>
        <tr>
          <Th className="sticky left-0 z-10 w-24">ID</Th>
          <Th className="w-24">State</Th>
          {showTask ? <Th className="w-36">Task</Th> : <Th className="w-12">Part.</Th>}
          <Th className="min-w-40">Groups / stream</Th>
          <Th className="w-14 text-right">Tries</Th>
          <Th className="whitespace-nowrap">Enqueued / finished (UTC)</Th>
          <Th className="min-w-48">Note</Th>
        </tr>
      </thead>
      <tbody>
        {items.map((r) => (
          <Tr key={r.id} data-testid={`execution-row-${r.id}`}>
            <Td className="sticky left-0 z-10 bg-surface font-mono text-[12px]">
              <Link href={`/executions/${r.id}`} className="text-accent hover:underline">
                {r.id}
              </Link>
            </Td>
            <Td>
              <ExecutionStateBadge state={r.state} />
            </Td>
            {showTask ? (
              <Td className="font-mono text-[12px] whitespace-nowrap">
                <Link href={executionsHref({ ...filter, task: r.task }, { order })} className="hover:underline">
                  {r.task}
                </Link>{' '}
                <span className="text-subtle">p{r.partition}</span>
              </Td>
            ) : (
              <Td className="font-mono text-[12px] text-subtle">p{r.partition}</Td>
            )}
            <Td className="font-mono text-[12px]">
              <span className="flex max-w-72 flex-wrap gap-x-2 gap-y-0.5">
                <KeyLinks r={r} filter={filter} order={order} />
                {Object.keys(r.groups).length === 0 && !r.streamKey && <span className="text-subtle">—</span>}
              </span>
            </Td>
            <Td className="text-right font-mono text-[12px] tabular-nums">{r.attempts}</Td>
            <Td>
              <span className="flex flex-col">
                <Timestamp date={r.enqueuedAt} />
                {r.finishedAt && (
                  <span className="text-subtle">
                    <Timestamp date={r.finishedAt} />
                  </span>
                )}
              </span>
            </Td>
            <Td className="text-[12px]">
              <div className="max-w-72 truncate">
                <Note r={r} />
              </div>
            </Td>
          </Tr>
        ))}
      </tbody>
    </Table>
    </CardsOnPhone>
  );
}
