'use client';
// The Streams view of a task: blocked streams, longest blocked first (blocked for = the
// wait of the oldest execution held behind the head) — the head's execution
// (linking to its detail), what it is doing (running, waiting for its retry, due), its
// age and attempt, the next retry, and how much waits behind it. Wide screens get a
// table, phones a list of cards.
import Link from 'next/link';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc/trpc-provider';
import type { StreamRow } from '@/server/presenters/task-streams';
import { streamsViewHref, type StreamHeadStatus } from '@/server/core/key-views';
import { formatDuration } from '@/components/charts/chart-format';
import { Badge, type Tone } from '@/components/ui/badge';
import { Callout } from '@/components/ui/callout';
import { EmptyState } from '@/components/ui/empty-state';
import { Panel } from '@/components/ui/panel';
import { Table, Td, Th, Tr } from '@/components/ui/table';
import { Timestamp } from '@/components/ui/timestamp';
import { Pager } from './pager';

const REFRESH_MS = 5000;
const n = (x: number) => x.toLocaleString('en-US');

const STATUS: Record<StreamHeadStatus, { label: string; tone: Tone }> = {
  running: { label: 'running', tone: 'accent' },
  'retry-scheduled': { label: 'retry scheduled', tone: 'warning' },
  scheduled: { label: 'scheduled', tone: 'neutral' },
  queued: { label: 'queued', tone: 'neutral' },
};

function Status({ r }: { r: StreamRow }) {
  return <Badge tone={STATUS[r.status].tone}>{STATUS[r.status].label}</Badge>;
}

const behind = (r: StreamRow) => `${n(r.behind)}${r.behindCapped ? '+' : ''}`;

function NextRetry({ r }: { r: StreamRow }) {
  if (!r.nextRetryAt) return <span className="text-subtle">—</span>;
  return <Timestamp date={r.nextRetryAt} />;
}

function HeadLink({ r }: { r: StreamRow }) {
  return (
    <Link href={r.headHref} className="font-mono text-accent hover:underline" aria-label={`Head execution ${r.headId} of stream ${r.stream}`}>
      #{r.headId}
    </Link>
  );
}

function Fact({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div className="flex items-baseline gap-1.5">
      <dt className="text-subtle">{label}</dt>
      <dd className="font-mono tabular-nums">{children}</dd>
    </div>
  );
}

function StreamCard({ r }: { r: StreamRow }) {
  return (
    <li className="flex flex-col gap-1.5 p-3" data-testid="stream-row" data-stream={r.stream}>
      <p className="font-mono text-[13px] font-semibold [overflow-wrap:anywhere]">{r.stream}</p>
      <div className="flex flex-wrap items-center gap-2 text-[12px]">
        <Status r={r} />
        <span>
          head <HeadLink r={r} />
        </span>
      </div>
      <dl className="flex flex-wrap gap-x-4 gap-y-1 text-[12px]">
        <Fact label="Head age">{formatDuration(r.headAgeMs)}</Fact>
        <Fact label="Attempt">{r.attempt}</Fact>
        <Fact label="Behind">{behind(r)}</Fact>
        <Fact label="Blocked for">{formatDuration(r.blockedForMs)}</Fact>
        {r.nextRetryAt && (
          <div className="flex flex-wrap items-baseline gap-x-1.5">
            <dt className="text-subtle">Next retry</dt>
            <dd>
              <NextRetry r={r} />
            </dd>
          </div>
        )}
      </dl>
      {r.lastError && (
        <p className="font-mono text-[11px] [overflow-wrap:anywhere] text-danger" title={r.lastError}>
          {r.lastError}
        </p>
      )}
    </li>
  );
}

export function StreamsView({ task, after }: { task: string; after: number | null }) {
  const trpc = useTRPC();
  const q = useQuery({ ...trpc.taskLoad.streams.queryOptions({ task, ...(after ? { after } : {}) }), refetchInterval: REFRESH_MS, placeholderData: keepPreviousData });
  if (q.error) return <Callout tone="danger">{q.error.message}</Callout>;
  const v = q.data;
  if (!v) return <div className="h-64 animate-pulse rounded-lg border border-border bg-surface" aria-label="Loading streams" />;
  const base = streamsViewHref(task);
  return (
    <Panel
      title="Blocked streams, longest blocked first"
      labelledBy="streams-title"
      actions={
        <span className="hidden text-[12px] text-muted sm:inline">
          {v.streamKeyPath ? (
            <>
              stream key <span className="font-mono text-fg">{v.streamKeyPath}</span>
            </>
          ) : (
            'stream keys given by producers'
          )}
        </span>
      }
    >
      {v.rows.length === 0 ? (
        <EmptyState title={after ? 'No more blocked streams' : 'No stream is blocked'}>
          A stream runs one execution at a time, in order; it shows here while executions wait behind its head.
          {v.truncated && ` Only the ${v.scanned.toLocaleString('en-US')} oldest streams were read.`}
        </EmptyState>
      ) : (
        <>
          <p className="px-3 py-2 text-[12px] text-muted">
            Blocked for: how long the oldest execution behind the head has waited.
            {v.truncated && ` Ranked among the ${v.scanned.toLocaleString('en-US')} oldest streams; newer streams were not read.`}
          </p>
          <div className="hidden md:block">
            <Table data-testid="streams-table">
              <thead>
                <tr>
                  <Th>Stream</Th>
                  <Th>Head</Th>
                  <Th>Status</Th>
                  <Th className="text-right">Head age</Th>
                  <Th className="text-right">Attempt</Th>
                  <Th>Next retry</Th>
                  <Th className="text-right">Behind</Th>
                  <Th className="text-right">Blocked for</Th>
                </tr>
              </thead>
              <tbody>
                {v.rows.map((r) => (
                  <Tr key={r.stream} data-testid="stream-row" data-stream={r.stream}>
                    <Td className="max-w-[18rem] font-mono font-semibold [overflow-wrap:anywhere]">
                      {r.stream}
                      {r.lastError && (
                        <p className="max-w-[18rem] truncate font-normal text-[11px] text-danger" title={r.lastError}>
                          {r.lastError}
                        </p>
                      )}
                    </Td>
                    <Td>
                      <HeadLink r={r} />
                    </Td>
                    <Td>
                      <Status r={r} />
                    </Td>
                    <Td className="text-right font-mono tabular-nums">{formatDuration(r.headAgeMs)}</Td>
                    <Td className="text-right font-mono tabular-nums">{r.attempt}</Td>
                    <Td>
                      <NextRetry r={r} />
                    </Td>
                    <Td className="text-right font-mono tabular-nums">{behind(r)}</Td>
                    <Td className="text-right font-mono tabular-nums" title={`Execution ${r.firstBehindId}, first behind the head, enqueued ${formatDuration(r.blockedForMs)} ago`}>
                      {formatDuration(r.blockedForMs)}
                    </Td>
                  </Tr>
                ))}
              </tbody>
            </Table>
          </div>
          <ul className="divide-y divide-border md:hidden" data-testid="streams-cards">
            {v.rows.map((r) => (
              <StreamCard key={r.stream} r={r} />
            ))}
          </ul>
        </>
      )}
      <Pager firstHref={after ? base : null} nextHref={v.nextCursor ? `${base}?after=${v.nextCursor}` : null} firstLabel="Longest blocked" nextLabel="Next" />
    </Panel>
  );
}
