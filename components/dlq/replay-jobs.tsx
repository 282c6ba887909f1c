'use client';
// Replay jobs with live progress (polled every second while one is pending or running),
// and pause / resume / cancel for operators. Progress comes from the job row the runner
// updates after every batch.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useEffect, useRef } from 'react';
import { useTRPC } from '@/components/trpc/trpc-provider';
import { errorMessage } from '@/components/trpc/trpc-error';
import { Badge, type Tone } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Panel } from '@/components/ui/panel';
import { Table, Td, Th, Tr } from '@/components/ui/table';
import { Timestamp } from '@/components/ui/timestamp';
import type { ReplayJobView } from '@/server/presenters/dead-letters';

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
            <Th className="w-44">Outcome</Th>
            <Th className="w-24">Rate</Th>
            <Th>Scope</Th>
            <Th className="w-56">Requested</Th>
            {canOperate && <Th className="w-40" />}
          </tr>
        </thead>
        <tbody>
          {jobs.map((j) => (
            <Tr key={j.id} data-testid={`replay-job-${j.id}`}>
              <Td className="font-mono text-[12px]">#{j.id}</Td>
              <Td>
                <Badge tone={STATE_TONES[j.state]}>{j.state}</Badge>
              </Td>
              <Td>
                <Progress job={j} />
              </Td>
              <Td className="text-[12px] whitespace-nowrap">
                <span className="text-success">{j.replayed.toLocaleString('en-US')} replayed</span>
                {j.skipped > 0 && <span className="text-muted"> · {j.skipped} skipped</span>}
                {j.failed > 0 && <span className="text-danger"> · {j.failed} failed</span>}
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
          ))}
        </tbody>
      </Table>
    </Panel>
  );
}
