'use client';
// The task's circuit breaker on the task page (issue 23): closed / half-open / open with
// when and why, the failures in its window, when probes start, the last transitions, and
// (operators) a reset that closes it now. Polls while not closed.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc/trpc-provider';
import { errorMessage } from '@/components/trpc/trpc-error';
import { Badge, type Tone } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Callout } from '@/components/ui/callout';
import { Panel } from '@/components/ui/panel';
import { Timestamp } from '@/components/ui/timestamp';

const TONE: Record<'closed' | 'open' | 'half-open', Tone> = { closed: 'success', 'half-open': 'warning', open: 'danger' };

export function BreakerPanel({ task, canReset }: { task: string; canReset: boolean }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const q = useQuery({
    ...trpc.tasks.breaker.queryOptions({ name: task }),
    refetchInterval: (query) => (query.state.data && query.state.data.state !== 'closed' ? 2000 : 15_000),
  });
  const reset = useMutation(
    trpc.tasks.resetBreaker.mutationOptions({
      onSuccess: () => qc.invalidateQueries(trpc.tasks.breaker.queryFilter({ name: task })),
    }),
  );
  const b = q.data;
  if (!b) return null;
  const s = b.settings;
  const settingsLine = s.enabled
    ? `trips at ${Math.round(s.failureRate * 100)}% failed of ≥ ${s.minCalls} in ${s.windowMs / 1000} s · cool-down ${s.coolDownMs / 1000} s · ${s.probes} probe${s.probes === 1 ? '' : 's'}`
    : 'off — enable it under “Circuit breaker” below';
  return (
    <Panel
      title="Circuit breaker"
      labelledBy="task-breaker"
      actions={
        canReset && b.state !== 'closed' ? (
          <Button size="sm" variant="primary" disabled={reset.isPending} onClick={() => reset.mutate({ name: task })} data-testid="breaker-reset">
            {reset.isPending ? 'Resetting…' : 'Reset breaker'}
          </Button>
        ) : undefined
      }
    >
      <div className="flex flex-col gap-2 p-3 text-[13px]" data-testid="breaker-panel">
        <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
          <span data-testid="breaker-state">
            <Badge tone={s.enabled ? TONE[b.state] : 'neutral'}>{s.enabled ? b.state : 'off'}</Badge>
          </span>
          {b.state !== 'closed' && b.since && (
            <span className="text-muted">
              since <Timestamp date={b.since} />
            </span>
          )}
          {b.state === 'closed' && s.enabled && (
            <span className="text-muted">
              {b.window.failed} of {b.window.total} failed in the window
            </span>
          )}
          <span className="text-[12px] text-subtle">
            {b.tripsTotal} trip{b.tripsTotal === 1 ? '' : 's'} · {settingsLine}
          </span>
        </div>
        {b.state !== 'closed' && (
          <Callout tone={b.state === 'open' ? 'danger' : 'warning'}>
            <span data-testid="breaker-reason">
              {b.state === 'open' ? 'Not claimed: ' : 'Probing: '}
              {b.reason}
            </span>
            {b.probesAt && (
              <span className="text-muted">
                {' '}
                · probes from <Timestamp date={b.probesAt} />
              </span>
            )}
            {b.state === 'half-open' && (
              <span className="text-muted">
                {' '}
                · {b.probesSucceeded} of {s.probes} probes succeeded
              </span>
            )}
            <span className="block text-[12px] text-muted">Queued executions wait without using attempts.</span>
          </Callout>
        )}
        {reset.error && <Callout tone="danger">{errorMessage(reset.error)}</Callout>}
        {b.events.length > 0 && (
          <ul className="m-0 flex list-none flex-col gap-0.5 p-0 text-[12px] text-muted" aria-label="Breaker transitions" data-testid="breaker-events">
            {b.events.slice(0, 5).map((e, i) => (
              <li key={i} className="flex flex-wrap gap-x-2">
                <Timestamp date={e.at} />
                <span className="font-mono">
                  {e.from} → {e.to}
                </span>
                <span className="min-w-0 break-words">{e.reason}</span>
              </li>
            ))}
          </ul>
        )}
      </div>
    </Panel>
  );
}
