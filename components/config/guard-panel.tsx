'use client';
// Guarded rollouts (issue 20): each guard with its state, the bake's countdown (by the
// server's clock: the list carries serverNow, the browser only adds the time since it
// fetched), the rule it watches, how it ended (promoted, rolled back by guard with the
// alert that did it, aborted, stood down) and, for operators, Promote now / Abort (roll
// back now). Shown on the Coordinators page (every task) and a task's history (that task).
import { useMutation, useQueryClient, useSuspenseQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useEffect, useState } from 'react';
import type { GuardView } from '@/server/presenters/config-guards';
import { useTRPC } from '@/components/trpc/trpc-provider';
import { errorMessage } from '@/components/trpc/trpc-error';
import { Badge, type Tone } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Callout } from '@/components/ui/callout';
import { Panel } from '@/components/ui/panel';
import { Timestamp } from '@/components/ui/timestamp';

export const GUARD_STATUS: Record<GuardView['status'], { label: string; tone: Tone }> = {
  baking: { label: 'baking', tone: 'warning' },
  promoted: { label: 'promoted', tone: 'success' },
  rolled_back: { label: 'rolled back by guard', tone: 'danger' },
  aborted: { label: 'aborted (rolled back)', tone: 'danger' },
  superseded: { label: 'stood down (edited again)', tone: 'neutral' },
};

export function countdown(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = String(s % 60).padStart(2, '0');
  return h ? `${h}:${String(m).padStart(2, '0')}:${sec}` : `${m}:${sec}`;
}

/** Ticks every second while mounted; returns ms since `since`. */
function useElapsed(since: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, []);
  return Math.max(0, now - since);
}

export function GuardPanel({ task, canEdit }: { task?: string; canEdit: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const input = { ...(task ? { task } : {}), limit: 5 };
  const { data, dataUpdatedAt } = useSuspenseQuery({ ...trpc.config.guards.queryOptions(input), refetchInterval: 3000 });
  const elapsed = useElapsed(dataUpdatedAt);
  const done = () => Promise.all([queryClient.invalidateQueries(trpc.config.pathFilter()), queryClient.invalidateQueries(trpc.tasks.pathFilter())]);
  const promote = useMutation(trpc.config.promoteGuard.mutationOptions({ onSettled: done }));
  const abort = useMutation(trpc.config.abortGuard.mutationOptions({ onSettled: done }));
  const error = promote.error ?? abort.error;

  if (data.guards.length === 0) return null;
  return (
    <Panel title="Guarded rollouts" className="mb-4">
      <div data-testid="guard-panel">
        {error && (
          <div className="p-3 pb-0">
            <Callout tone="danger">{errorMessage(error)}</Callout>
          </div>
        )}
        <ul aria-label="Guarded rollouts">
          {data.guards.map((g) => (
            <GuardRowView
              key={g.version}
              g={g}
              remainingMs={Math.max(0, g.remainingMs - elapsed)}
              canEdit={canEdit}
              pending={promote.isPending || abort.isPending}
              onPromote={() => promote.mutate({ version: g.version })}
              onAbort={() => abort.mutate({ version: g.version })}
            />
          ))}
        </ul>
      </div>
    </Panel>
  );
}

function GuardRowView({
  g,
  remainingMs,
  canEdit,
  pending,
  onPromote,
  onAbort,
}: {
  g: GuardView;
  remainingMs: number;
  canEdit: boolean;
  pending: boolean;
  onPromote: () => void;
  onAbort: () => void;
}) {
  const s = GUARD_STATUS[g.status];
  const baking = g.status === 'baking';
  return (
    <li className="flex flex-col gap-1 border-b border-border p-3 text-[13px] last:border-b-0" data-guard-version={g.version} data-guard-status={g.status}>
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
        <span className="font-mono font-semibold">v{g.version}</span>
        <Badge tone={s.tone}>{s.label}</Badge>
        <span>
          {g.tasks.map((t, i) => (
            <span key={t}>
              {i > 0 && ', '}
              <Link href={`/tasks/${encodeURIComponent(t)}/history`} className="font-mono text-accent hover:underline">
                {t}
              </Link>
            </span>
          ))}
        </span>
        {baking && (
          <span className="font-mono tabular-nums text-warning" data-testid="guard-countdown" aria-label={`bake time left ${countdown(remainingMs)}`}>
            {remainingMs > 0 ? `${countdown(remainingMs)} left` : 'bake over, promoting…'}
          </span>
        )}
        {baking && canEdit && (
          <span className="ml-auto flex gap-2">
            <Button size="sm" disabled={pending} onClick={onPromote}>
              Promote now
            </Button>
            <Button size="sm" variant="danger" disabled={pending} onClick={onAbort}>
              Abort (roll back)
            </Button>
          </span>
        )}
      </div>
      <p className="text-[12px] text-muted">
        {baking ? 'Rolls back on' : 'Rule:'} {g.ruleText} of the task{g.tasks.length > 1 ? 's' : ''} · bake {g.bakeText} · applied by {g.createdBy} at <Timestamp date={g.startedAt} /> UTC.
        {!baking && g.endedAt && (
          <>
            {' '}
            Ended <Timestamp date={g.endedAt} /> UTC by {g.endedBy}
            {g.rollbackVersion !== null && <> — restored as v{g.rollbackVersion} from v{g.previousVersion}</>}.
          </>
        )}
      </p>
      {!baking && g.reason && <p className="break-words text-[12px]">{g.reason}</p>}
      {g.evidence && (
        <p className="text-[12px] text-muted">
          Evidence:{' '}
          <Link href={`/alerts?alert=${g.evidence.alertId}`} className="text-accent hover:underline">
            alert {g.evidence.alertId}
          </Link>{' '}
          · {g.evidence.rule} {g.evidence.type} at <Timestamp date={new Date(g.evidence.at)} /> UTC · value {g.evidence.value ?? '—'}
          {g.evidence.threshold !== null && <>, threshold {g.evidence.threshold}</>}
        </p>
      )}
    </li>
  );
}
