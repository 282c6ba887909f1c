'use client';
// The dead-letter list with selection: replay or purge the selected rows, or everything
// matching the current filter (the count says how many that is). Viewers see the list
// without the actions. A table on a wide screen, one card per dead letter on a phone
// (CardsOnPhone).
import Link from 'next/link';
import { useState } from 'react';
import { useRouter } from 'next/navigation';
import type { DeadLetterFilter } from '@/server/core/dead-letter-filter';
import type { DeadLetterListRow } from '@/server/presenters/dead-letters';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { EmptyState } from '@/components/ui/empty-state';
import { Table, Td, Th, Tr } from '@/components/ui/table';
import { Card, CardHead, CardsOnPhone } from '@/components/ui/card-list';
import { Timestamp } from '@/components/ui/timestamp';
import { ReplayDialog } from './replay-dialog';
import { PurgeDialog } from './purge-dialog';
import { deadLettersHref } from './dead-letter-search-params';
import type { UiScope } from './dead-letter-scope';

/** A row's group keys and stream key on one line, or '' when it has none. */
const keysOf = (d: DeadLetterListRow) =>
  [...Object.entries(d.groups).map(([g, k]) => `${g}=${k}`), d.streamKey ? `stream ${d.streamKey}` : null].filter(Boolean).join(' · ');

function TaskLink({ d, filter }: { d: DeadLetterListRow; filter: DeadLetterFilter }) {
  return (
    <Link href={deadLettersHref({ ...filter, task: d.task })} className="font-mono text-[12px] hover:underline">
      {d.task}
    </Link>
  );
}

function FingerprintLink({ d, filter }: { d: DeadLetterListRow; filter: DeadLetterFilter }) {
  return (
    <Link href={deadLettersHref({ ...filter, fingerprint: d.fingerprint })} className="font-mono text-[12px] text-muted hover:text-fg hover:underline" title={`Only fingerprint ${d.fingerprint}`}>
      {d.fingerprint.slice(0, 10) || '—'}
    </Link>
  );
}

function ReplayState({ d }: { d: DeadLetterListRow }) {
  return d.replayedAt ? (
    <span title={`replayed ${d.replayedAt.toISOString()}`} className="whitespace-nowrap">
      <Badge tone="success">replayed</Badge> <span className="font-mono text-[11px] text-muted">→ {d.replayExecutionId}</span>
    </span>
  ) : (
    <Badge tone="warning">pending</Badge>
  );
}

type Dialog = { kind: 'replay' | 'purge'; scope: UiScope; count: number | null; capped: boolean } | null;

export function DeadLetterTable({
  items,
  filter,
  count,
  countCapped,
  canOperate,
}: {
  items: DeadLetterListRow[];
  filter: DeadLetterFilter;
  count: number | null;
  countCapped: boolean;
  canOperate: boolean;
}) {
  const router = useRouter();
  const [selected, setSelected] = useState<Set<number>>(new Set());
  const [dialog, setDialog] = useState<Dialog>(null);
  const allOnPage = items.length > 0 && items.every((d) => selected.has(d.id));
  const toggle = (id: number) =>
    setSelected((s) => {
      const n = new Set(s);
      if (n.has(id)) n.delete(id);
      else n.add(id);
      return n;
    });
  const sel = [...selected];
  const matching = count === null ? 'all matching' : `all ${countCapped ? `${count.toLocaleString('en-US')}+` : count.toLocaleString('en-US')} matching`;
  const close = () => setDialog(null);
  const done = () => {
    setSelected(new Set());
    router.refresh();
  };

  return (
    <>
      {canOperate && (
        <div className="flex flex-wrap items-center gap-2 border-b border-border px-3 py-2" role="toolbar" aria-label="Dead letter actions">
          {/* On a phone the cards have no header row: select-all sits here. */}
          <label className="flex items-center gap-1.5 text-[12px] text-muted md:hidden">
            <input
              type="checkbox"
              aria-label="Select all on this page"
              checked={allOnPage}
              disabled={items.length === 0}
              onChange={() => setSelected(allOnPage ? new Set() : new Set(items.map((d) => d.id)))}
            />
            All
          </label>
          <span className="mr-1 text-[12px] text-muted" aria-live="polite">
            {sel.length ? `${sel.length} selected` : 'Select rows, or act on everything matching the filter'}
          </span>
          <Button size="sm" variant="primary" disabled={sel.length === 0} onClick={() => setDialog({ kind: 'replay', scope: { ids: sel }, count: sel.length, capped: false })}>
            Replay selected
          </Button>
          <Button size="sm" variant="danger" disabled={sel.length === 0} onClick={() => setDialog({ kind: 'purge', scope: { ids: sel }, count: sel.length, capped: false })}>
            Purge selected
          </Button>
          <span className="mx-1 h-4 w-px bg-border" aria-hidden />
          <Button size="sm" disabled={items.length === 0} onClick={() => setDialog({ kind: 'replay', scope: { filter }, count, capped: countCapped })}>
            Replay {matching}
          </Button>
          <Button size="sm" variant="danger" disabled={items.length === 0} onClick={() => setDialog({ kind: 'purge', scope: { filter }, count, capped: countCapped })}>
            Purge {matching}
          </Button>
        </div>
      )}
      {items.length === 0 ? (
        <EmptyState title="No dead letters match">
          An execution lands here when its last attempt fails, with its payload, every attempt&apos;s error and the last stack trace.
        </EmptyState>
      ) : (
        <CardsOnPhone
          label="Dead letters"
          testId="dead-letter-cards"
          cards={items.map((d) => (
            <Card key={d.id} data-testid={`dead-letter-card-${d.id}`} className={selected.has(d.id) ? 'bg-accent-soft/40' : ''}>
              <CardHead>
                <span className="flex min-w-0 items-center gap-2">
                  {canOperate && <input type="checkbox" aria-label={`Select dead letter ${d.id}`} checked={selected.has(d.id)} onChange={() => toggle(d.id)} />}
                  <Link href={`/dead-letters/${d.id}`} className="font-mono text-[13px] text-accent hover:underline">
                    #{d.id}
                  </Link>
                  <TaskLink d={d} filter={filter} />
                </span>
                <ReplayState d={d} />
              </CardHead>
              <Link href={`/dead-letters/${d.id}`} className="line-clamp-2 font-mono break-all hover:underline" title={d.error}>
                {d.error}
              </Link>
              <div className="flex flex-wrap items-center gap-x-2 text-muted">
                <Timestamp date={d.deadAt} />
                <span className="text-subtle">
                  · {d.attempts} {d.attempts === 1 ? 'try' : 'tries'}
                </span>
                <FingerprintLink d={d} filter={filter} />
              </div>
              {keysOf(d) && <div className="font-mono break-all text-muted">{keysOf(d)}</div>}
            </Card>
          ))}
        >
          <Table aria-label="Dead letters">
            <thead>
              <tr>
                {canOperate && (
                  <Th className="w-8">
                    <input
                      type="checkbox"
                      aria-label="Select all on this page"
                      checked={allOnPage}
                      onChange={() => setSelected(allOnPage ? new Set() : new Set(items.map((d) => d.id)))}
                    />
                  </Th>
                )}
                <Th className="w-20">ID</Th>
                <Th className="w-44 whitespace-nowrap">Dead at (UTC)</Th>
                <Th className="w-36">Task</Th>
                <Th>Error</Th>
                <Th className="w-28">Fingerprint</Th>
                <Th className="w-40">Group / stream</Th>
                <Th className="w-16 text-right">Tries</Th>
                <Th className="w-28">Replay</Th>
              </tr>
            </thead>
            <tbody>
              {items.map((d) => (
                <Tr key={d.id} data-testid={`dead-letter-row-${d.id}`} className={selected.has(d.id) ? 'bg-accent-soft/40' : ''}>
                  {canOperate && (
                    <Td>
                      <input type="checkbox" aria-label={`Select dead letter ${d.id}`} checked={selected.has(d.id)} onChange={() => toggle(d.id)} />
                    </Td>
                  )}
                  <Td className="font-mono text-[12px]">
                    <Link href={`/dead-letters/${d.id}`} className="text-accent hover:underline">
                      {d.id}
                    </Link>
                  </Td>
                  <Td>
                    <Timestamp date={d.deadAt} />
                  </Td>
                  <Td className="font-mono text-[12px] whitespace-nowrap">
                    <TaskLink d={d} filter={filter} />
                  </Td>
                  <Td className="max-w-0">
                    <Link href={`/dead-letters/${d.id}`} className="block truncate font-mono text-[12px] hover:underline" title={d.error}>
                      {d.error}
                    </Link>
                  </Td>
                  <Td className="font-mono text-[12px]">
                    <FingerprintLink d={d} filter={filter} />
                  </Td>
                  <Td className="max-w-0 truncate font-mono text-[12px] text-muted" title={keysOf(d) || undefined}>
                    {keysOf(d) || '—'}
                  </Td>
                  <Td className="text-right font-mono text-[12px] tabular-nums">{d.attempts}</Td>
                  <Td>
                    <ReplayState d={d} />
                  </Td>
                </Tr>
              ))}
            </tbody>
          </Table>
        </CardsOnPhone>
      )}
      {dialog?.kind === 'replay' && <ReplayDialog scope={dialog.scope} count={dialog.count} countCapped={dialog.capped} onClose={close} onDone={done} />}
      {dialog?.kind === 'purge' && <PurgeDialog scope={dialog.scope} count={dialog.count} countCapped={dialog.capped} onClose={close} onDone={done} />}
    </>
  );
}
