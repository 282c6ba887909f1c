'use client';
// The Coordinators page: the rollout of the latest config version ("rolling out" until
// every live coordinator applied it), then every member with its heartbeat age, owned
// partitions, slots, desired vs applied version, apply time and error. Refreshed every
// second while a rollout is under way, every 3 s otherwise. Operators can ask a
// coordinator to drain.
import { useMutation, useQueryClient, useSuspenseQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { CoordinatorView, Rollout } from '@/server/presenters/coordinators';
import { useTRPC } from '@/components/trpc/trpc-provider';
import { errorMessage } from '@/components/trpc/trpc-error';
import { Badge, type Tone } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Callout } from '@/components/ui/callout';
import { Command, EmptyState } from '@/components/ui/empty-state';
import { Panel } from '@/components/ui/panel';
import { Table, Td, Th, Tr } from '@/components/ui/table';
import { Timestamp } from '@/components/ui/timestamp';
import { cx } from '@/components/ui/class-names';
import { Card, CardFields, CardHead, CardsOnPhone } from '@/components/ui/card-list';

function age(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms < 3_600_000) return `${Math.floor(ms / 60_000)} min ${Math.floor((ms % 60_000) / 1000)} s`;
  return `${Math.floor(ms / 3_600_000)} h ${Math.floor((ms % 3_600_000) / 60_000)} min`;
}

const STATUS: Record<CoordinatorView['status'], Tone> = { live: 'success', draining: 'warning', stale: 'danger', stopped: 'neutral' };

function RolloutBanner({ rollout }: { rollout: Rollout | null }) {
  if (!rollout) return <Callout tone="accent">No config version has been applied yet.</Callout>;
  const head = (
    <>
      Config version <span className="font-mono font-semibold">{rollout.version}</span>
      {rollout.message && <> — “{rollout.message}”</>} by {rollout.author}, <Timestamp date={rollout.createdAt} /> UTC.
    </>
  );
  if (rollout.live === 0) {
    return <Callout tone="warning">{head} No live coordinator to apply it.</Callout>;
  }
  if (rollout.rollingOut) {
    return (
      <div role="status" aria-live="polite" data-rollout="rolling-out" className="rounded-md border border-warning/40 bg-warning-soft px-3 py-2 text-[13px]">
        <p>
          <span className="mr-2 inline-flex items-center gap-1.5 font-semibold text-warning">
            <span aria-hidden="true" className="inline-block h-2 w-2 animate-pulse rounded-full bg-warning" />
            Rolling out
          </span>
          {head} Applied by {rollout.applied} of {rollout.live} live coordinators.
        </p>
        {rollout.pending.length > 0 && <p className="mt-1 text-muted">Waiting for: {rollout.pending.join(', ')}</p>}
        {rollout.failed.length > 0 && (
          <ul className="mt-1 text-danger">
            {rollout.failed.map((f) => (
              <li key={f.name}>
                {f.name} failed to apply: {f.error}
              </li>
            ))}
          </ul>
        )}
      </div>
    );
  }
  return (
    <div role="status" data-rollout="complete" className="rounded-md border border-success/40 bg-success-soft px-3 py-2 text-[13px]">
      <span className="mr-2 font-semibold text-success">Rolled out</span>
      {head} All {rollout.live} live coordinator{rollout.live === 1 ? '' : 's'} run it
      {rollout.maxPushLatencyMs !== null && <> (slowest applied {rollout.maxPushLatencyMs} ms after commit)</>}.
    </div>
  );
}

export function CoordinatorsTable({ canEdit }: { canEdit: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { data } = useSuspenseQuery({
    ...trpc.coordinators.list.queryOptions(),
    refetchInterval: (q) => (q.state.data?.rollout?.rollingOut ? 1000 : 3000),
  });
  const [asked, setAsked] = useState<string | null>(null);
  const drain = useMutation(
    trpc.coordinators.drain.mutationOptions({
      onSuccess: async (r) => {
        setAsked(`${r.name} is draining: its ${r.releasedPartitions} partitions were released to the others.`);
        await queryClient.invalidateQueries(trpc.coordinators.pathFilter());
      },
    }),
  );
  const latest = data.rollout?.version ?? null;

  return (
    <div className="flex flex-col gap-4">
      <RolloutBanner rollout={data.rollout} />
      {asked && <Callout tone="success">{asked}</Callout>}
      {drain.error && <Callout tone="danger">{errorMessage(drain.error)}</Callout>}
      <Panel
        title={`Coordinators (${data.coordinators.filter((c) => c.status === 'live' || c.status === 'draining').length} live)`}
        labelledBy="coordinators-title"
        actions={<span className="text-[12px] text-muted">Each stale after its own threshold without a heartbeat (default {data.staleAfterMs / 1000} s)</span>}
      >
        {data.coordinators.length === 0 ? (
          <EmptyState title="No coordinators have registered">
            Start one against this database with <Command>npx sluice coordinator</Command>; it shows up here once it heartbeats.
          </EmptyState>
        ) : (
          <CardsOnPhone
            label="Coordinators"
            testId="coordinator-cards"
            cards={data.coordinators.map((c) => {
              const out = c.status === 'stale' || c.status === 'stopped';
              return (
                <Card key={c.id} data-coordinator-card={c.name} className={cx(out && 'opacity-60')}>
                  <CardHead>
                    <span className="min-w-0 truncate font-mono">
                      <span className="font-medium">{c.name}</span> <span className="text-[11px] text-muted">{c.host} · {c.pid}</span>
                    </span>
                    <Badge tone={STATUS[c.status]}>{c.status}</Badge>
                  </CardHead>
                  <CardFields
                    fields={[
                      { label: 'Heartbeat', value: <Heartbeat c={c} /> },
                      { label: 'Partitions', value: <Partitions c={c} /> },
                      { label: 'Slots in use', value: <span className="font-mono tabular-nums">{c.inFlight} / {c.slots}</span> },
                      { label: 'Config', value: <ConfigVersion c={c} latest={latest} out={out} /> },
                      { label: 'Apply', value: <Apply c={c} /> },
                      { label: 'Started', value: <><Timestamp date={c.startedAt} /> UTC</> },
                    ]}
                  />
                  {canEdit && c.status === 'live' && (
                    <div>
                      <DrainButton c={c} pending={drain.isPending} onDrain={() => { setAsked(null); drain.mutate({ id: c.id }); }} />
                    </div>
                  )}
                </Card>
              );
            })}
          >
          <Table aria-label="Coordinators">
            <thead>
              <tr>
                <Th>Name · host · pid</Th>
                <Th>Status</Th>
                <Th>Started (UTC)</Th>
                <Th className="text-right">Heartbeat</Th>
                <Th>Partitions</Th>
                <Th className="text-right whitespace-nowrap">Slots in use</Th>
                <Th>Config</Th>
                <Th className="text-right">Apply</Th>
                {canEdit && <Th className="text-right">Actions</Th>}
              </tr>
            </thead>
            <tbody>
              {data.coordinators.map((c) => {
                const out = c.status === 'stale' || c.status === 'stopped';
                return (
                  <Tr key={c.id} data-coordinator={c.name} className={cx(out && 'opacity-60')}>
                    <Td className="font-mono whitespace-nowrap">
                      <span className="font-medium">{c.name}</span>
                      {/* Host and pid under the name: the row keeps Drain on screen at 1280 px. */}
                      <span className="block text-[11px] text-muted">
                        {c.host} · {c.pid}
                      </span>
                    </Td>
                    <Td>
                      <Badge tone={STATUS[c.status]}>{c.status}</Badge>
                    </Td>
                    <Td>
                      <Timestamp date={c.startedAt} />
                    </Td>
                    <Td className="text-right font-mono text-[12px] whitespace-nowrap tabular-nums">
                      <Heartbeat c={c} />
                    </Td>
                    <Td className="text-[12px]">
                      <Partitions c={c} />
                    </Td>
                    <Td className="text-right font-mono text-[12px] whitespace-nowrap tabular-nums">
                      {c.inFlight} / {c.slots}
                    </Td>
                    <Td className="text-[12px] whitespace-nowrap" data-applied-version={c.appliedVersion ?? ''}>
                      <ConfigVersion c={c} latest={latest} out={out} />
                    </Td>
                    <Td className="text-right font-mono text-[12px] whitespace-nowrap tabular-nums">
                      <Apply c={c} />
                    </Td>
                    {canEdit && (
                      <Td className="text-right">
                        {c.status === 'live' && <DrainButton c={c} pending={drain.isPending} onDrain={() => { setAsked(null); drain.mutate({ id: c.id }); }} />}
                      </Td>
                    )}
                  </Tr>
                );
              })}
            </tbody>
          </Table>
          </CardsOnPhone>
        )}
      </Panel>
    </div>
  );
}

// A row's cells, shared by the table (wide screens) and the cards (phones).
function Heartbeat({ c }: { c: CoordinatorView }) {
  return (
    <>
      <span className={cx(c.status === 'stale' && 'text-danger')}>{age(c.heartbeatAgeMs)} ago</span>
      <span className="block text-[11px] text-muted" data-testid="coordinator-timings">{timingsText(c.timings)}</span>
    </>
  );
}

function Partitions({ c }: { c: CoordinatorView }) {
  return (
    <>
      <span className="font-mono tabular-nums">{c.ownedPartitions}</span>
      {c.ownedByTask.length > 0 && (
        <span className="text-muted" title={c.ownedByTask.map((t) => `${t.task}: ${t.partitions.join(', ')}`).join('\n')}>
          {' '}
          ({c.ownedByTask.map((t) => `${t.task} ×${t.partitions.length}`).join(', ')})
        </span>
      )}
    </>
  );
}

function ConfigVersion({ c, latest, out }: { c: CoordinatorView; latest: number | null; out: boolean }) {
  return (
    <>
      {c.appliedVersion === null ? <span className="text-subtle">none yet</span> : <span className="font-mono">v{c.appliedVersion}</span>}
      {latest !== null && !out && (c.onLatest ? <span className="ml-1.5 text-success">current</span> : <span className="ml-1.5 text-warning">→ v{latest} pending</span>)}
      {c.applyError && <p className="mt-0.5 max-w-72 text-danger">Apply failed: {c.applyError}</p>}
    </>
  );
}

function Apply({ c }: { c: CoordinatorView }) {
  return (
    <>
      {c.applyMs === null ? '—' : `${c.applyMs} ms`}
      {c.pushLatencyMs !== null && (
        <div className="text-muted" title="commit → applied">
          push {c.pushLatencyMs} ms
        </div>
      )}
    </>
  );
}

function DrainButton({ c, pending, onDrain }: { c: CoordinatorView; pending: boolean; onDrain: () => void }) {
  return (
    <Button
      size="sm"
      disabled={pending}
      onClick={() => {
        if (window.confirm(`Drain ${c.name}? It stops claiming, finishes what it runs and exits; the others take its partitions.`)) onDrain();
      }}
    >
      Drain
    </Button>
  );
}

/** A member's own timings: beat interval, stale threshold, lease grace (defaults where it wrote none). */
function timingsText(t: { heartbeatMs: number | null; staleMs: number; leaseGraceMs: number | null }): string {
  const s = (ms: number) => `${ms / 1000} s`;
  return [t.heartbeatMs !== null ? `beat ${s(t.heartbeatMs)}` : null, `stale ${s(t.staleMs)}`, t.leaseGraceMs !== null ? `grace ${s(t.leaseGraceMs)}` : null]
    .filter((x) => x !== null)
    .join(' · ');
}
