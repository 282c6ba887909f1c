'use client';
// The Keys view of a task: per group, each key's running / limit (override marked),
// queued, oldest wait and finished per minute, most queued first, one page at a time.
// The key a link is about (an alert, the partition drill-down) is pinned on top. Each
// key opens the executions list filtered by it; operators add an override from here
// (the task editor opens with the row prefilled). Wide screens get a table, phones a
// list of cards — nothing is clipped.
import Link from 'next/link';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc/trpc-provider';
import type { KeyRow, TaskKeysView } from '@/server/presenters/task-keys';
import { addOverrideHref, keysViewHref } from '@/server/core/key-views';
import { formatDuration } from '@/components/charts/chart-format';
import { formatWait } from '@/server/core/rate-limit';
import { Badge } from '@/components/ui/badge';
import { buttonClass } from '@/components/ui/button';
import { Callout } from '@/components/ui/callout';
import { EmptyState } from '@/components/ui/empty-state';
import { Panel } from '@/components/ui/panel';
import { Table, Td, Th, Tr } from '@/components/ui/table';
import { cx } from '@/components/ui/class-names';
import { Pager } from './pager';

const REFRESH_MS = 5000;
const n = (x: number) => x.toLocaleString('en-US');
const hhmm = (d: Date) => `${String(d.getUTCHours()).padStart(2, '0')}:${String(d.getUTCMinutes()).padStart(2, '0')}`;

function RunningOfLimit({ r }: { r: KeyRow }) {
  const full = r.running >= r.limit;
  return (
    <span className="inline-flex items-center gap-1.5 whitespace-nowrap">
      <span className={cx('font-mono tabular-nums', full && 'text-warning')} title={full ? 'At its limit: its queued work waits for a slot' : undefined}>
        {n(r.running)} / {n(r.limit)}
      </span>
      {r.override && <Badge tone="accent">override</Badge>}
    </span>
  );
}

// Rate limits and fair share (issue #19): the key's rate with its next slot and current rate,
// and its weight with running ÷ weight (what fair share evens out across waiting keys).
const unitOf = (per: number) => (per === 1000 ? '/s' : per === 60_000 ? '/min' : per === 3_600_000 ? '/h' : ` per ${per} ms`);
const fmt1 = (x: number) => (Number.isInteger(x) ? n(x) : x.toFixed(1));
function KeyRate({ r }: { r: KeyRow }) {
  if (!r.rate) return <span className="text-subtle">—</span>;
  const x = r.rate;
  return (
    <span className="inline-flex flex-col gap-0.5" data-testid="key-rate">
      <span className="font-mono tabular-nums">{x.label}</span>
      <span className={cx('text-[11px]', x.held ? 'text-warning' : 'text-muted')} data-testid="key-next-slot">
        {x.held ? `held: next slot in ${formatWait(x.nextSlotMs)}` : 'next slot now'}
      </span>
      {x.current !== null && (
        <span className="text-[11px] text-muted" title="Finished in the last complete minute, in the rate's unit">
          now {fmt1(x.current)}
          {unitOf(x.spec.per)}
        </span>
      )}
    </span>
  );
}
function KeyFair({ r }: { r: KeyRow }) {
  if (!r.fair) return <span className="text-subtle">—</span>;
  return (
    <span className="inline-flex flex-col gap-0.5" data-testid="key-fair">
      <span className="font-mono tabular-nums">weight {n(r.fair.weight)}</span>
      <span className="text-[11px] text-muted" title="Running ÷ weight: fair share hands free slots to the waiting keys with the least">
        {fmt1(r.fair.perWeight)} running per weight
      </span>
    </span>
  );
}

const wait = (r: KeyRow) => (r.oldestWaitMs === null ? '—' : formatDuration(r.oldestWaitMs));
const WAIT_NONE_TITLE = 'No due execution of this key waits in a queue: its queued work is blocked behind streams, scheduled for later, or none.';
const perMinute = (r: KeyRow) => (r.finishedPerMinute === null ? '—' : n(r.finishedPerMinute));

function KeyActions({ task, group, r, canEdit, align = 'end' }: { task: string; group: string; r: KeyRow; canEdit: boolean; align?: 'start' | 'end' }) {
  return (
    <span className={cx('flex flex-wrap items-center gap-1.5', align === 'end' ? 'justify-end' : 'justify-start')}>
      <Link href={r.executionsHref} className={buttonClass('ghost', 'sm')} aria-label={`Executions of ${group}=${r.key}`}>
        Executions →
      </Link>
      {canEdit && (
        <Link href={addOverrideHref(task, group, r.key)} className={buttonClass('secondary', 'sm')} aria-label={`Add override for ${group}=${r.key}`}>
          {r.override ? 'Edit override' : 'Add override'}
        </Link>
      )}
    </span>
  );
}

function Fact({ label, children, title }: { label: string; children: React.ReactNode; title?: string }) {
  return (
    <div className="flex items-baseline gap-1.5" title={title}>
      <dt className="text-subtle">{label}</dt>
      <dd className="font-mono tabular-nums">{children}</dd>
    </div>
  );
}

function KeyCard({ task, group, r, canEdit, pinned }: { task: string; group: string; r: KeyRow; canEdit: boolean; pinned?: boolean }) {
  return (
    <li className={cx('flex flex-col gap-1.5 p-3', pinned && 'bg-accent-soft/40')} data-testid={pinned ? 'key-focus' : 'key-row'} data-key={r.key}>
      <p className="font-mono text-[13px] [overflow-wrap:anywhere]">
        <span className="text-muted">{group}=</span>
        <strong>{r.key}</strong>
        {pinned && <span className="ml-2 font-sans text-[11px] text-accent">linked</span>}
      </p>
      <dl className="flex flex-wrap gap-x-4 gap-y-1 text-[12px]">
        <div className="flex items-baseline gap-1.5">
          <dt className="text-subtle">Running</dt>
          <dd>
            <RunningOfLimit r={r} />
          </dd>
        </div>
        <Fact label="Queued">{n(r.queued)}</Fact>
        <Fact label="Oldest wait" title={r.oldestWaitMs === null ? WAIT_NONE_TITLE : undefined}>
          {wait(r)}
        </Fact>
        <Fact label="Finished/min">{perMinute(r)}</Fact>
        {r.rate && (
          <div className="flex items-baseline gap-1.5">
            <dt className="text-subtle">Rate</dt>
            <dd>
              <KeyRate r={r} />
            </dd>
          </div>
        )}
        {r.fair && (
          <div className="flex items-baseline gap-1.5">
            <dt className="text-subtle">Fair share</dt>
            <dd>
              <KeyFair r={r} />
            </dd>
          </div>
        )}
      </dl>
      <KeyActions task={task} group={group} r={r} canEdit={canEdit} align="start" />
    </li>
  );
}

function KeyTableRow({ task, group, r, canEdit, pinned, rate, fair }: { task: string; group: string; r: KeyRow; canEdit: boolean; pinned?: boolean; rate: boolean; fair: boolean }) {
  return (
    <Tr className={cx(pinned && 'bg-accent-soft/40')} data-testid={pinned ? 'key-focus' : 'key-row'} data-key={r.key}>
      <Td className="max-w-[22rem] font-mono [overflow-wrap:anywhere]">
        <span className="text-muted">{group}=</span>
        <strong>{r.key}</strong>
        {pinned && <span className="ml-2 font-sans text-[11px] text-accent">linked</span>}
      </Td>
      <Td>
        <RunningOfLimit r={r} />
      </Td>
      <Td className="text-right font-mono tabular-nums">{n(r.queued)}</Td>
      <Td className="text-right font-mono tabular-nums" title={r.oldestWaitMs === null ? WAIT_NONE_TITLE : undefined}>
        {wait(r)}
      </Td>
      <Td className="text-right font-mono tabular-nums">{perMinute(r)}</Td>
      {rate && (
        <Td>
          <KeyRate r={r} />
        </Td>
      )}
      {fair && (
        <Td>
          <KeyFair r={r} />
        </Td>
      )}
      <Td className="text-right">
        <KeyActions task={task} group={group} r={r} canEdit={canEdit} />
      </Td>
    </Tr>
  );
}

function GroupTabs({ v }: { v: TaskKeysView }) {
  if (v.groups.length < 2) return null;
  return (
    <nav aria-label="Group" className="flex flex-wrap gap-1.5">
      {v.groups.map((g) => (
        <Link
          key={g.name}
          href={keysViewHref(v.task, g.name)}
          aria-current={g.name === v.group ? 'page' : undefined}
          className={cx(buttonClass(g.name === v.group ? 'primary' : 'secondary', 'sm'), 'font-mono')}
        >
          {g.name}
        </Link>
      ))}
    </nav>
  );
}

export function KeysView({ task, group, focusKey, after, canEdit }: { task: string; group: string | null; focusKey: string | null; after: string | null; canEdit: boolean }) {
  const trpc = useTRPC();
  const input = { task, ...(group ? { group } : {}), ...(focusKey ? { key: focusKey } : {}), ...(after ? { after } : {}) };
  const q = useQuery({ ...trpc.taskLoad.keys.queryOptions(input), refetchInterval: REFRESH_MS, placeholderData: keepPreviousData });
  if (q.error) return <Callout tone="danger">{q.error.message}</Callout>;
  const v = q.data;
  if (!v) return <div className="h-64 animate-pulse rounded-lg border border-border bg-surface" aria-label="Loading keys" />;
  if (!v.group) {
    return (
      <Panel>
        <EmptyState title={`${task} has no concurrency groups`}>
          Only the task limit applies, so there are no keys to show. Add a group in the{' '}
          <Link className="text-accent hover:underline" href={`/tasks/${encodeURIComponent(task)}#sec-groups`}>
            task editor
          </Link>{' '}
          to cap running executions per tenant, customer or message.
        </EmptyState>
      </Panel>
    );
  }
  const g = v.groups.find((x) => x.name === v.group)!;
  const focusMissing = v.focusKey !== null && v.focus === null;
  const rows = v.rows.filter((r) => r.key !== v.focus?.key);
  const pageHref = (cursor: string | null) => {
    const base = keysViewHref(task, v.group, v.focusKey);
    return cursor ? `${base}${base.includes('?') ? '&' : '?'}${new URLSearchParams({ after: cursor }).toString()}` : base;
  };
  const groupName = v.group;
  return (
    <div className="flex flex-col gap-3" data-testid="keys-view">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <GroupTabs v={v} />
        <p className="text-[12px] text-muted" data-testid="keys-summary">
          <span className="font-mono text-fg">{n(v.totals.keys)}</span> {v.totals.keys === 1 ? 'key' : 'keys'} with work · <span className="font-mono text-fg">{n(v.totals.running)}</span> running ·{' '}
          <span className="font-mono text-fg">{n(v.totals.queued)}</span> queued · limit <span className="font-mono text-fg">{n(g.limit)}</span> per key
          {g.overrides > 0 && <> ({n(g.overrides)} override{g.overrides === 1 ? '' : 's'})</>}
          {v.groupRate && (
            <>
              {' '}
              · rate <span className="font-mono text-fg">{v.groupRate}</span> per key
            </>
          )}
          {v.fairShared && <> · shared fairly by weight</>}
        </p>
      </div>
      {focusMissing && (
        <Callout tone="accent">
          <span className="font-mono">
            {groupName}={v.focusKey}
          </span>{' '}
          has nothing running or queued now.
          {canEdit && (
            <>
              {' '}
              <Link className="font-medium underline" href={addOverrideHref(task, groupName, v.focusKey!)}>
                Add an override for it
              </Link>
            </>
          )}
        </Callout>
      )}
      <Panel
        title={`Keys of ${groupName}, most queued first`}
        labelledBy="keys-title"
        actions={
          <span className="hidden text-[12px] text-muted sm:inline">
            {v.finishedMinute ? <>finished/min: {hhmm(v.finishedMinute)}–{hhmm(new Date(v.finishedMinute.getTime() + 60_000))} UTC</> : 'finished/min: not counted yet'}
          </span>
        }
      >
        {rows.length === 0 && !v.focus ? (
          <EmptyState title={after ? 'No more keys' : `No key of ${groupName} has work now`}>
            Keys appear here while executions carrying them run or wait.
          </EmptyState>
        ) : (
          <>
            <div className="hidden md:block">
              <Table data-testid="keys-table">
                <thead>
                  <tr>
                    <Th>Key</Th>
                    <Th>Running / limit</Th>
                    <Th className="text-right">Queued</Th>
                    <Th className="text-right">Oldest wait</Th>
                    <Th className="text-right">Finished/min</Th>
                    {v.groupRate && <Th>Rate</Th>}
                    {v.fairShared && <Th>Fair share</Th>}
                    <Th className="text-right">
                      <span className="sr-only">Actions</span>
                    </Th>
                  </tr>
                </thead>
                <tbody>
                  {v.focus && <KeyTableRow task={task} group={groupName} r={v.focus} canEdit={canEdit} pinned rate={v.groupRate !== null} fair={v.fairShared} />}
                  {rows.map((r) => (
                    <KeyTableRow key={r.key} task={task} group={groupName} r={r} canEdit={canEdit} rate={v.groupRate !== null} fair={v.fairShared} />
                  ))}
                </tbody>
              </Table>
            </div>
            <ul className="divide-y divide-border md:hidden" data-testid="keys-cards">
              {v.focus && <KeyCard task={task} group={groupName} r={v.focus} canEdit={canEdit} pinned />}
              {rows.map((r) => (
                <KeyCard key={r.key} task={task} group={groupName} r={r} canEdit={canEdit} />
              ))}
            </ul>
          </>
        )}
        <Pager firstHref={after ? pageHref(null) : null} nextHref={v.nextCursor ? pageHref(v.nextCursor) : null} firstLabel="Most queued" nextLabel={`Next ${v.rows.length}`} />
      </Panel>
    </div>
  );
}
