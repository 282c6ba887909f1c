// One execution: why it waits (when it does), where it runs (task, partition and its
// owner, lease), its keys with links to their lists, its stream's neighbours, its dead
// letter or replay origin, a timeline of every attempt, each failed attempt's error and
// stack, and the payload as a collapsible tree.
import Link from 'next/link';
import type { ExecutionDetail as Detail, TimelineEvent } from '@/server/presenters/execution';
import { Badge } from '@/components/ui/badge';
import { Panel } from '@/components/ui/panel';
import { Timestamp } from '@/components/ui/timestamp';
import { JsonTree } from './json-tree';
import { WhyWaitingPanel } from './why-waiting';
import { ExecutionStateBadge } from './state-badge';
import { executionsHref } from './execution-search-params';

function Row({ k, children }: { k: string; children: React.ReactNode }) {
  return (
    <div className="grid grid-cols-[8rem_1fr] gap-2 border-b border-border px-3 py-1.5 last:border-b-0">
      <dt className="text-[12px] text-muted">{k}</dt>
      <dd className="min-w-0 text-[13px] break-all">{children}</dd>
    </div>
  );
}

function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms < 3_600_000) return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
  return `${(ms / 3_600_000).toFixed(1)} h`;
}

const EVENT_LABEL: Record<TimelineEvent['kind'], string> = {
  enqueued: 'enqueued',
  claimed: 'claimed',
  failed: 'failed, will retry',
  dead: 'failed for good',
  succeeded: 'succeeded',
  retry_at: 'retry due',
  runs_at: 'due (delay)',
};

function Timeline({ events }: { events: TimelineEvent[] }) {
  return (
    <ol className="flex flex-col" aria-label="Timeline">
      {events.map((e, i) => {
        const prev = events[i - 1];
        return (
          <li key={i} className="grid grid-cols-[1rem_1fr] gap-2 px-3 py-1.5">
            <span
              aria-hidden
              className={`mt-1.5 h-2 w-2 rounded-full ${e.kind === 'succeeded' ? 'bg-success' : e.kind === 'dead' || e.kind === 'failed' ? 'bg-danger' : e.kind === 'claimed' ? 'bg-accent' : 'bg-border'}`}
            />
            <div className="min-w-0">
              <div className="flex flex-wrap items-baseline gap-x-2 text-[13px]">
                <span className="font-medium">{EVENT_LABEL[e.kind]}</span>
                {e.attempt !== null && <span className="text-[12px] text-muted">attempt {e.attempt}</span>}
                <Timestamp date={e.at} />
                {prev && <span className="text-[12px] text-subtle">+{duration(e.at.getTime() - prev.at.getTime())}</span>}
              </div>
              {e.detail && <p className="truncate font-mono text-[12px] text-danger" title={e.detail}>{e.detail}</p>}
              {e.coordinatorId && e.kind === 'claimed' && <p className="font-mono text-[11px] text-subtle">by {e.coordinatorId}</p>}
            </div>
          </li>
        );
      })}
    </ol>
  );
}

export function ExecutionDetailView({ d }: { d: Detail }) {
  const groups = Object.entries(d.groups);
  return (
    <div className="grid gap-4 xl:grid-cols-[minmax(0,2fr)_minmax(0,1fr)]">
      <div className="flex min-w-0 flex-col gap-4">
        {d.whyWaiting && <WhyWaitingPanel why={d.whyWaiting} task={d.task} />}
        {d.lastError && (
          <Panel title="Last error">
            <p className="px-3 py-2 font-mono text-[13px] break-all text-danger">{d.lastError}</p>
          </Panel>
        )}
        <Panel title={`Attempts (${d.attempts})`}>
          {d.attemptHistory.length === 0 ? (
            <p className="px-3 py-2 text-[12px] text-muted">
              {d.attempts === 0 ? 'Not claimed yet.' : 'No attempt has failed.'}
            </p>
          ) : (
            // A list, not a table: an attempt's error and stack wrap in the panel's width,
            // so nothing scrolls sideways on a phone (390 px).
            <ol aria-label="Failed attempts" className="flex flex-col">
              {d.attemptHistory.map((a) => (
                <li key={a.attempt} className="flex min-w-0 flex-col gap-1 border-b border-border px-3 py-2 last:border-b-0">
                  <div className="flex flex-wrap items-center gap-x-3 gap-y-1 text-[12px]">
                    <span className="font-mono font-medium">#{a.attempt}</span>
                    <Badge tone={a.outcome === 'dead' ? 'danger' : 'warning'}>{a.outcome === 'dead' ? 'dead' : 'retried'}</Badge>
                    <span className="text-muted">
                      started <Timestamp date={a.startedAt} />
                    </span>
                    <span className="text-muted">
                      took <span className="font-mono tabular-nums">{a.startedAt ? duration(a.failedAt.getTime() - a.startedAt.getTime()) : '—'}</span>
                    </span>
                  </div>
                  <p className="font-mono text-[12px] break-all text-danger">{a.error}</p>
                  {a.stack && (
                    <details>
                      <summary className="cursor-pointer text-[12px] text-muted">stack trace</summary>
                      <pre className="max-h-72 overflow-auto bg-surface-2 p-2 font-mono text-[11px] break-all whitespace-pre-wrap">{a.stack}</pre>
                    </details>
                  )}
                </li>
              ))}
            </ol>
          )}
        </Panel>
        <Panel title="Payload">
          {d.payloadHidden ? (
            <p className="px-3 py-2 text-[12px] text-muted">Payloads are not shown to this reader.</p>
          ) : d.payloadPreview !== null ? (
            <>
              <p className="px-3 py-2 text-[12px] text-muted">
                {(d.payloadBytes ?? 0).toLocaleString('en-US')} bytes: too big to show as a tree; its first {d.payloadPreview.length.toLocaleString('en-US')} characters:
              </p>
              <pre className="max-h-96 overflow-auto bg-surface-2 p-3 font-mono text-[12px] break-all whitespace-pre-wrap">{d.payloadPreview}</pre>
            </>
          ) : (
            <JsonTree value={d.payload} label="Payload" />
          )}
        </Panel>
      </div>
      <div className="flex min-w-0 flex-col gap-4">
        <Panel title="Execution">
          <dl>
            <Row k="State">
              <ExecutionStateBadge state={d.displayState} />
            </Row>
            <Row k="Task">
              <Link href={executionsHref({ task: d.task })} className="font-mono text-accent hover:underline">
                {d.task}
              </Link>
            </Row>
            <Row k="Partition">
              <span className="font-mono">{d.partition}</span>{' '}
              {d.owner?.owner ? (
                <span className="text-[12px] text-muted">
                  owned by <span className="font-mono">{d.owner.name ?? d.owner.owner}</span>{' '}
                  {d.ownerLive ? <Badge tone="success">live</Badge> : <Badge tone="danger">{d.owner.stopped ? 'stopped' : d.owner.draining ? 'draining' : 'stale'}</Badge>}
                </span>
              ) : (
                <Badge tone="danger">no owner</Badge>
              )}
            </Row>
            <Row k="Groups">
              {groups.length === 0 ? (
                <span className="text-subtle">—</span>
              ) : (
                <span className="flex flex-wrap gap-x-2">
                  {groups.map(([g, k]) => (
                    <Link key={g} href={executionsHref({ task: d.task, group: `${g}=${k}` })} className="font-mono text-accent hover:underline">
                      {g}={k}
                    </Link>
                  ))}
                </span>
              )}
            </Row>
            <Row k="Stream">
              {d.streamKey === null ? (
                <span className="text-subtle">—</span>
              ) : (
                <span className="flex flex-col gap-0.5">
                  <Link href={executionsHref({ task: d.task, stream: d.streamKey })} className="font-mono text-accent hover:underline">
                    {d.streamKey}
                  </Link>
                  <span className="text-[12px] text-muted">
                    previous:{' '}
                    {d.neighbours?.previous ? (
                      <Link href={`/executions/${d.neighbours.previous.id}`} className="font-mono text-accent hover:underline">
                        {d.neighbours.previous.id}
                      </Link>
                    ) : (
                      'none'
                    )}{' '}
                    {d.neighbours?.previous && `(${d.neighbours.previous.state})`} · next:{' '}
                    {d.neighbours?.next ? (
                      <Link href={`/executions/${d.neighbours.next.id}`} className="font-mono text-accent hover:underline">
                        {d.neighbours.next.id}
                      </Link>
                    ) : (
                      'none'
                    )}{' '}
                    {d.neighbours?.next && `(${d.neighbours.next.state})`}
                  </span>
                </span>
              )}
            </Row>
            <Row k="Idempotency key">{d.idempotencyKey ? <span className="font-mono">{d.idempotencyKey}</span> : <span className="text-subtle">—</span>}</Row>
            {d.traceparent && (
              <Row k="Trace">
                <span className="font-mono" title={d.traceparent} data-testid="execution-trace-id">
                  {d.traceparent.split('-')[1]}
                </span>
              </Row>
            )}
            {d.state === 'running' && (
              <Row k="Lease">
                <span className="font-mono text-[12px]">{d.leaseOwner}</span> until <Timestamp date={d.leaseExpiresAt} />
              </Row>
            )}
            {d.timeout && (
              <Row k="Timeout">
                <span data-testid="execution-timeout">
                  {d.timeout.ms} ms{' '}
                  <span className="text-[12px] text-subtle">
                    {d.timeout.source === 'key' ? `key ${d.timeout.group}=${d.timeout.key}` : 'task'}
                  </span>
                </span>
              </Row>
            )}
            <Row k="Enqueued">
              <Timestamp date={d.enqueuedAt} />
            </Row>
            <Row k="Run at">
              <Timestamp date={d.runAt} />
            </Row>
            <Row k="Started">
              <Timestamp date={d.startedAt} />
            </Row>
            <Row k="Finished">
              <Timestamp date={d.finishedAt} />
            </Row>
            {d.deadLetter && (
              <Row k="Dead letter">
                <Link href={`/dead-letters/${d.deadLetter.id}`} className="text-accent hover:underline">
                  dead letter {d.deadLetter.id}
                </Link>
                {d.deadLetter.replayExecutionId !== null && (
                  <>
                    {' '}
                    · replayed as{' '}
                    <Link href={`/executions/${d.deadLetter.replayExecutionId}`} className="font-mono text-accent hover:underline">
                      {d.deadLetter.replayExecutionId}
                    </Link>
                  </>
                )}
              </Row>
            )}
            {d.replayOrigin && (
              <Row k="Replay of">
                <Link href={`/dead-letters/${d.replayOrigin.deadLetterId}`} className="text-accent hover:underline">
                  dead letter {d.replayOrigin.deadLetterId}
                </Link>
                {d.replayOrigin.originalExecutionId !== null && (
                  <>
                    {' '}
                    (execution{' '}
                    <Link href={`/executions/${d.replayOrigin.originalExecutionId}`} className="font-mono text-accent hover:underline">
                      {d.replayOrigin.originalExecutionId}
                    </Link>
                    )
                  </>
                )}
                {d.replayOrigin.jobId !== null && <span className="text-[12px] text-muted"> · replay job {d.replayOrigin.jobId}</span>}
              </Row>
            )}
          </dl>
        </Panel>
        <Panel title="Timeline">
          <Timeline events={d.timeline} />
        </Panel>
      </div>
    </div>
  );
}
