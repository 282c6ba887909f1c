'use client';
// Replay jobs with live progress (polled every second while one is pending or running),
// and pause / resume / cancel for operators. Progress comes from the job row the runner
// updates after every batch; below it, what became of the new executions (succeeded,
// failed again, still running), and on demand the executions themselves, each linked.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import Link from 'next/link';
import { Fragment, useEffect, useRef, useState } from 'react';
import { useTRPC } from '@/components/trpc/trpc-provider';
import { errorMessage } from '@/components/trpc/trpc-error';
import { Badge, type Tone } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Panel } from '@/components/ui/panel';
import { Table, Td, Th, Tr } from '@/components/ui/table';
import { Timestamp } from '@/components/ui/timestamp';
import type { ReplayJobView, ReplayedExecutionRow } from '@/server/presenters/dead-letters';

const STATE_TONES: Record<ReplayJobView['state'], Tone> = {
  pending: 'neutral',
  running: 'accent',
  paused: 'warning',
  cancelled: 'neutral',
  completed: 'success',
  failed: 'danger',
};

const active = (j: ReplayJobView) => j.state === 'pending' || j.state === 'running';

function scopeText(j: ReplayJobView): string {
  if (j.scope === 'ids') {
    const ids = (j.filter as { ids?: number[] }).ids ?? [];
    return `${ids.length} selected`;
  }
  const parts = Object.entries(j.filter as Record<string, unknown>)
    .filter(([k, v]) => v !== undefined && v !== null && !(k === 'status' && v === 'all'))
    .map(([k, v]) => `${k}=${String(v)}`);
  return parts.length ? parts.join(' ') : 'everything';
}

function Progress({ job }: { job: ReplayJobView }) {
  const pct = Math.round(job.progress * 100);
  return (
    <div className="flex min-w-48 items-center gap-2">
      <div
        role="progressbar"
        aria-label={`Replay job ${job.id} progress`}
        aria-valuemin={0}
        aria-valuemax={job.total}
        aria-valuenow={job.processed}
        className="h-2 flex-1 overflow-hidden rounded-full bg-surface-2"
      >
        <div className={`h-full rounded-full ${job.failed > 0 ? 'bg-warning' : 'bg-accent'} transition-[width] duration-500`} style={{ width: `${pct}%` }} />
      </div>
      <span className="w-24 text-right font-mono text-[12px] tabular-nums">
        {job.processed.toLocaleString('en-US')}/{job.total.toLocaleString('en-US')}
      </span>
    </div>
  );
}

const OUTCOME_LABEL: Record<ReplayedExecutionRow['outcome'], { text: string; tone: string }> = {
  succeeded: { text: 'succeeded', tone: 'text-success' },
  failedAgain: { text: 'failed again', tone: 'text-danger' },
  running: { text: 'still running', tone: 'text-accent' },
  canceled: { text: 'canceled', tone: 'text-muted' },
  removed: { text: 'removed by retention', tone: 'text-muted' },
};
const OUTCOME_ORDER = ['succeeded', 'failedAgain', 'running', 'canceled', 'removed'] as const;

/** "3 succeeded · 1 failed again · 2 still running" of the job's new executions. */
function Outcomes({ job }: { job: ReplayJobView }) {
  const o = job.outcomes;
  if (o.checked === 0) return <span className="text-muted">no new executions yet</span>;
  const parts = OUTCOME_ORDER.filter((k) => o[k] > 0 || k === 'succeeded' || k === 'failedAgain' || k === 'running');
  return (
    <span data-testid={`replay-outcomes-${job.id}`}>
      {parts.map((k, i) => (
        <Fragment key={k}>
          {i > 0 && <span className="text-subtle"> · </span>}
          <span className={o[k] > 0 ? OUTCOME_LABEL[k].tone : 'text-muted'}>
            {o[k].toLocaleString('en-US')} {OUTCOME_LABEL[k].text}
          </span>
        </Fragment>
      ))}
      {o.capped && <span className="text-subtle"> (first {o.checked.toLocaleString('en-US')})</span>}
    </span>
  );
}

/** The job's new executions, a page at a time, each linked to its detail. */
function JobExecutions({ job }: { job: ReplayJobView }) {
  const trpc = useTRPC();
  const [after, setAfter] = useState<number[]>([0]);
  const cursor = after.at(-1)!;
  const q = useQuery({ ...trpc.deadLetters.replayExecutions.queryOptions({ jobId: job.id, after: cursor, limit: 20 }), refetchInterval: job.outcomes.running > 0 ? 2000 : false });
  if (q.error) return <p className="text-[12px] text-danger">{errorMessage(q.error)}</p>;
  if (!q.data) return <p className="text-[12px] text-muted">Loading executions…</p>;
  return (
    <div className="flex flex-col gap-2">
      <ul className="grid grid-cols-1 gap-x-6 gap-y-1 sm:grid-cols-2 lg:grid-cols-3" data-testid={`replay-executions-${job.id}`}>
        {q.data.items.map((x) => (
          <li key={x.executionId} className="flex items-center gap-2 text-[12px]" data-outcome={x.outcome}>
            <Link className="font-mono text-accent hover:underline" href={`/executions/${x.executionId}`}>
              #{x.executionId}
            </Link>
            <span className={OUTCOME_LABEL[x.outcome].tone}>{OUTCOME_LABEL[x.outcome].text}</span>
            {x.state && x.outcome === 'running' && <span className="text-subtle">({x.state})</span>}
            <Link className="text-subtle hover:underline" href={`/dead-letters/${x.deadLetterId}`} title="The dead letter it replays">
              from dead letter {x.deadLetterId}
            </Link>
          </li>
        ))}
      </ul>
      {(after.length > 1 || q.data.next !== null) && (
        <div className="flex gap-2">
          <Button size="sm" variant="ghost" disabled={after.length === 1} onClick={() => setAfter(after.slice(0, -1))}>
            Previous
          </Button>
          <Button size="sm" variant="ghost" disabled={q.data.next === null} onClick={() => setAfter([...after, q.data.next!])}>
            Next
          </Button>
        </div>
      )}
    </div>
  );
}

function JobActions({ job }: { job: ReplayJobView }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const m = useMutation(trpc.deadLetters.controlReplay.mutationOptions({ onSettled: () => qc.invalidateQueries(trpc.deadLetters.replayJobs.pathFilter()) }));
  const act = (action: 'pause' | 'resume' | 'cancel') => m.mutate({ jobId: job.id, action });
  return (
    <span className="inline-flex items-center gap-1">
      {active(job) && (
        <Button size="sm" variant="ghost" disabled={m.isPending} onClick={() => act('pause')}>
          Pause
        </Button>
      )}
      {job.state === 'paused' && (
        <Button size="sm" variant="ghost" disabled={m.isPending} onClick={() => act('resume')}>
          Resume
        </Button>
      )}
      {(active(job) || job.state === 'paused') && (
        <Button size="sm" variant="ghost" disabled={m.isPending} onClick={() => act('cancel')}>
          Cancel
        </Button>
      )}
      {m.error && (
        <span role="alert" className="text-[12px] text-danger">
          {errorMessage(m.error)}
        </span>
      )}
    </span>
  );
}

export function ReplayJobs({ canOperate }: { canOperate: boolean }) {
  const trpc = useTRPC();
  const router = useRouter();
  const q = useQuery({
    ...trpc.deadLetters.replayJobs.queryOptions({ limit: 5 }),
    refetchInterval: (query) => ((query.state.data ?? []).some(active) ? 1000 : 10_000),
  });
  const jobs = q.data ?? [];
  const [open, setOpen] = useState<number | null>(null);
  // When a job finishes, the list's "replayed" marks changed: re-render the server data.
  const wasActive = useRef<Set<number>>(new Set());
  useEffect(() => {
    const now = new Set(jobs.filter(active).map((j) => j.id));
    if ([...wasActive.current].some((id) => !now.has(id))) router.refresh();
    wasActive.current = now;
  }, [jobs, router]);
  if (jobs.length === 0) return null;
  return (
    <Panel title="Replay jobs" className="mb-4">
      <Table>
        <thead>
          <tr>
            <Th className="w-16">Job</Th>
            <Th className="w-24">State</Th>
            <Th>Progress</Th>
            <Th className="w-72">Outcome</Th>
            <Th className="w-24">Rate</Th>
            <Th>Scope</Th>
            <Th className="w-56">Requested</Th>
            {canOperate && <Th className="w-40" />}
          </tr>
        </thead>
        <tbody>
          {jobs.map((j) => (
            <Fragment key={j.id}>
            <Tr data-testid={`replay-job-${j.id}`}>
              <Td className="font-mono text-[12px]">#{j.id}</Td>
              <Td>
                <Badge tone={STATE_TONES[j.state]}>{j.state}</Badge>
              </Td>
              <Td>
                <Progress job={j} />
              </Td>
              <Td className="min-w-60 text-[12px]">
                <div className="whitespace-nowrap">
                  <span className="text-success">{j.replayed.toLocaleString('en-US')} replayed</span>
                  {j.skipped > 0 && <span className="text-muted"> · {j.skipped} skipped</span>}
                  {j.failed > 0 && <span className="text-danger"> · {j.failed} failed</span>}
                </div>
                <div className="mt-0.5">
                  <Outcomes job={j} />
                </div>
                {j.replayed > 0 && (
                  <button
                    type="button"
                    className="mt-0.5 text-accent hover:underline"
                    aria-expanded={open === j.id}
                    onClick={() => setOpen(open === j.id ? null : j.id)}
                  >
                    {open === j.id ? 'Hide executions' : 'Show executions'}
                  </button>
                )}
              </Td>
              <Td className="text-[12px] text-muted">{j.ratePerS ? `${j.ratePerS}/s` : 'unlimited'}</Td>
              <Td className="max-w-72 truncate font-mono text-[12px]" title={scopeText(j)}>
                {scopeText(j)}
                {!j.resetAttempts && <span className="ml-1 text-muted">(attempts kept)</span>}
              </Td>
              <Td className="text-[12px]">
                <Timestamp date={j.createdAt} /> <span className="text-muted">by {j.createdByLabel}</span>
              </Td>
              {canOperate && (
                <Td className="text-right">
                  <JobActions job={j} />
                </Td>
              )}
            </Tr>
            {open === j.id && (
              <tr>
                <td colSpan={canOperate ? 8 : 7} className="border-b border-border bg-surface-2/40 px-3 py-2">
                  <JobExecutions job={j} />
                </td>
              </tr>
            )}
            </Fragment>
          ))}
        </tbody>
      </Table>
    </Panel>
  );
}
