// One dead letter: what failed (last error and stack), the payload as formatted JSON,
// where it ran (task, partition, groups, stream), every attempt with its time and error,
// and who replayed it, when, into which execution.
import Link from 'next/link';
import type { DeadLetterDetail as Detail } from '@/server/presenters/dead-letters';
import { Badge, type Tone } from '@/components/ui/badge';
import { Panel } from '@/components/ui/panel';
import { Table, Td, Th, Tr } from '@/components/ui/table';
import { Timestamp } from '@/components/ui/timestamp';
import { deadLettersHref } from './dead-letter-search-params';

function Pre({ children, label }: { children: string; label: string }) {
  return (
    <pre aria-label={label} className="max-h-96 overflow-auto bg-surface-2 p-3 font-mono text-[12px] leading-relaxed break-all whitespace-pre-wrap">
      {children}
    </pre>
  );
}

function Row({ k, children }: { k: string; children: React.ReactNode }) {
  return (
    <div className="grid grid-cols-[9rem_1fr] gap-2 border-b border-border px-3 py-1.5 last:border-b-0">
      <dt className="text-[12px] text-muted">{k}</dt>
      <dd className="min-w-0 text-[13px] break-all">{children}</dd>
    </div>
  );
}

const ITEM_TONES: Record<string, Tone> = { replayed: 'success', skipped: 'neutral', failed: 'danger', pending: 'accent' };

export function DeadLetterDetail({ d }: { d: Detail }) {
  return (
    <div className="grid gap-4 xl:grid-cols-[minmax(0,2fr)_minmax(0,1fr)]">
      <div className="flex min-w-0 flex-col gap-4">
        <Panel title="Last error">
          <p className="border-b border-border px-3 py-2 font-mono text-[13px] break-all text-danger">{d.lastError}</p>
          {d.stack ? <Pre label="Last stack trace">{d.stack}</Pre> : <p className="px-3 py-2 text-[12px] text-muted">No stack trace was recorded.</p>}
        </Panel>
        <Panel title="Payload">
          <Pre label="Payload">{JSON.stringify(d.payload, null, 2)}</Pre>
        </Panel>
        <Panel title={`Attempts (${d.attemptsLog.length})`}>
          {d.attemptsLog.length === 0 ? (
            <p className="px-3 py-2 text-[12px] text-muted">No attempts were recorded for execution {d.executionId} (they may have been trimmed).</p>
          ) : (
            <Table>
              <thead>
                <tr>
                  <Th className="w-12">#</Th>
                  <Th className="w-44">Started</Th>
                  <Th className="w-44">Failed</Th>
                  <Th className="w-20">Outcome</Th>
                  <Th>Error</Th>
                </tr>
              </thead>
              <tbody>
                {d.attemptsLog.map((a) => (
                  <Tr key={a.attempt} className="align-top">
                    <Td className="font-mono text-[12px]">{a.attempt}</Td>
                    <Td>
                      <Timestamp date={a.startedAt} />
                    </Td>
                    <Td>
                      <Timestamp date={a.failedAt} />
                    </Td>
                    <Td>
                      <Badge tone={a.outcome === 'dead' ? 'danger' : 'warning'}>{a.outcome}</Badge>
                    </Td>
                    <Td className="max-w-0">
                      {a.stack ? (
                        <details>
                          <summary className="cursor-pointer truncate font-mono text-[12px]">{a.error}</summary>
                          <pre className="mt-1 overflow-auto rounded bg-surface-2 p-2 font-mono text-[11px] whitespace-pre-wrap">{a.stack}</pre>
                        </details>
                      ) : (
                        <span className="block truncate font-mono text-[12px]" title={a.error}>
                          {a.error}
                        </span>
                      )}
                    </Td>
                  </Tr>
                ))}
              </tbody>
            </Table>
          )}
        </Panel>
      </div>
      <div className="flex min-w-0 flex-col gap-4">
        <Panel title="Details">
          <dl>
            <Row k="Task">
              <Link className="font-mono text-accent hover:underline" href={deadLettersHref({ task: d.task })}>
                {d.task}
              </Link>
            </Row>
            <Row k="Execution">
              <span className="font-mono">{d.executionId}</span> <span className="text-muted">partition {d.partition}</span>
            </Row>
            <Row k="Fingerprint">
              <Link className="font-mono text-accent hover:underline" href={deadLettersHref({ fingerprint: d.fingerprint })}>
                {d.fingerprint || '—'}
              </Link>
            </Row>
            <Row k="Groups">
              {Object.keys(d.groups).length === 0 ? (
                <span className="text-muted">—</span>
              ) : (
                Object.entries(d.groups).map(([g, k]) => (
                  <Link key={g} className="mr-2 font-mono hover:underline" href={deadLettersHref({ group: `${g}=${k}` })}>
                    {g}={k}
                  </Link>
                ))
              )}
            </Row>
            <Row k="Stream">
              {d.streamKey ? (
                <Link className="font-mono hover:underline" href={deadLettersHref({ stream: d.streamKey })}>
                  {d.streamKey}
                </Link>
              ) : (
                <span className="text-muted">—</span>
              )}
            </Row>
            <Row k="Idempotency key">{d.idempotencyKey ? <span className="font-mono">{d.idempotencyKey}</span> : <span className="text-muted">—</span>}</Row>
            <Row k="Attempts">{d.attempts}</Row>
            <Row k="Enqueued">
              <Timestamp date={d.enqueuedAt} />
            </Row>
            <Row k="Dead at">
              <Timestamp date={d.deadAt} />
            </Row>
          </dl>
        </Panel>
        <Panel title="Replays">
          {d.replays.length === 0 ? (
            <p className="px-3 py-2 text-[12px] text-muted">Not replayed.</p>
          ) : (
            <ul className="divide-y divide-border">
              {d.replays.map((r) => (
                <li key={r.jobId} className="flex flex-col gap-0.5 px-3 py-2 text-[12px]">
                  <span className="flex items-center gap-2">
                    <Badge tone={ITEM_TONES[r.itemState] ?? 'neutral'}>{r.itemState}</Badge>
                    <span className="font-mono">job #{r.jobId}</span>
                    <span className="text-muted">by {r.byLabel}</span>
                  </span>
                  <span className="text-muted">
                    requested <Timestamp date={r.requestedAt} />
                    {r.doneAt && (
                      <>
                        {' '}
                        · done <Timestamp date={r.doneAt} />
                      </>
                    )}
                  </span>
                  {r.executionId && (
                    <span>
                      → execution <span className="font-mono">{r.executionId}</span>
                      {r.executionId === d.replayExecutionId && d.replayExecutionState && <span className="text-muted"> ({d.replayExecutionState})</span>}
                    </span>
                  )}
                  {r.error && <span className="text-muted">{r.error}</span>}
                </li>
              ))}
            </ul>
          )}
        </Panel>
      </div>
    </div>
  );
}
