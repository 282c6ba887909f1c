'use client';
// One alert: what fired and why (rule, value against its line, peak), the evidence (the
// partition charted against its siblings, or the metric against its thresholds; the top
// keys), suggested remedies linking into the task editor, the operator actions, and the
// history of the episode.
import Link from 'next/link';
import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc/trpc-provider';
import { errorMessage, fieldErrorsOf } from '@/components/trpc/trpc-error';
import type { AlertDetail } from '@/server/presenters/alerts';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Input, Select } from '@/components/ui/input';
import { Field } from '@/components/ui/field';
import { Callout } from '@/components/ui/callout';
import { Timestamp } from '@/components/ui/timestamp';
import { ThresholdChart, type ChartRow, type SeriesDef } from '@/components/charts/threshold-chart';
import { formatDuration, formatValue, seriesColor, type ValueKind } from '@/components/charts/chart-format';
import { SeverityBadge, StatusPill } from './alert-badges';
import { alertsHref } from './alert-search-params';
import { addOverrideHref, keysViewHref } from '@/server/core/key-views';

/** How each rule's value reads (the list's rows and the detail alike). */
export const VALUE_KIND: Record<AlertDetail['rule'], ValueKind> = {
  depth: 'count',
  imbalance: 'ratio',
  retryRate: 'percent',
  dlqRate: 'percent',
  p99LatencyMs: 'ms',
  hotPartition: 'ratio',
  hotKey: 'percent',
  shedPerSecond: 'rate',
  rejectRate: 'percent',
  waitP99Ms: 'ms',
  coordinatorStale: 'ms',
  unownedPartitions: 'count',
  configBehind: 'count',
  maintenanceFailing: 'ms',
  reconcileRepairs: 'count',
  dlqNearFull: 'percent',
  dbConnections: 'percent',
  vacuumHorizon: 'ms',
  deadTuples: 'percent',
  circuitOpen: 'count',
  keyWait: 'ms',
  streamBlocked: 'ms',
  spillBacklog: 'count',
};

const CHART_KIND: Record<NonNullable<AlertDetail['chart']>['metric'], ValueKind> = {
  depth: 'count',
  imbalance: 'ratio',
  retryRate: 'percent',
  dlqRate: 'percent',
  p99LatencyMs: 'ms',
  arrivalRate: 'rate',
};

export const SILENCE_CHOICES = [
  { ms: 3600_000, label: '1 hour' },
  { ms: 4 * 3600_000, label: '4 hours' },
  { ms: 24 * 3600_000, label: '24 hours' },
  { ms: 7 * 86_400_000, label: '7 days' },
];

function Fact({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div className="min-w-0">
      <dt className="text-[11px] text-subtle">{label}</dt>
      <dd className="text-[13px] break-words">{children}</dd>
    </div>
  );
}

function evidenceSeries(a: AlertDetail): { rows: ChartRow[]; series: SeriesDef[]; title: string } | null {
  const c = a.chart;
  if (!c) return null;
  if (c.metric === 'depth' && a.partition !== null) {
    return {
      title: `Partition ${a.partition} against its siblings`,
      rows: c.points.map((p) => ({ t: p.t, subject: p.subject, median: p.siblingsMedian, max: p.siblingsMax })),
      series: [
        { key: 'subject', name: `partition ${a.partition}`, color: 'var(--danger)' },
        { key: 'max', name: 'siblings max', color: seriesColor(0), muted: true },
        { key: 'median', name: 'siblings median', color: seriesColor(1), muted: true, dashed: true },
      ],
    };
  }
  return {
    title: a.rule === 'hotKey' ? `Depth of ${a.task} (all partitions)` : `${a.ruleLabel} of ${a.task}`,
    rows: c.points.map((p) => ({ t: p.t, value: p.value })),
    series: [{ key: 'value', name: a.ruleLabel, color: 'var(--accent)' }],
  };
}

function Actions({ a, onDone }: { a: AlertDetail; onDone: () => Promise<void> }) {
  const trpc = useTRPC();
  const [silenceMs, setSilenceMs] = useState(SILENCE_CHOICES[0]!.ms);
  const [comment, setComment] = useState('');
  const opts = {
    onSuccess: async () => {
      setComment('');
      await onDone();
    },
  };
  const ack = useMutation(trpc.alerts.acknowledge.mutationOptions(opts));
  const silence = useMutation(trpc.alerts.silence.mutationOptions(opts));
  const unsilence = useMutation(trpc.alerts.unsilence.mutationOptions(opts));
  const resolve = useMutation(trpc.alerts.resolve.mutationOptions(opts));
  const pending = ack.isPending || silence.isPending || unsilence.isPending || resolve.isPending;
  const error = ack.error ?? silence.error ?? unsilence.error ?? resolve.error;
  const fe = fieldErrorsOf(error);
  const note = comment.trim() === '' ? {} : { comment: comment.trim() };
  const silenced = a.silencedUntil !== null && a.silencedUntil.getTime() > Date.now();
  return (
    <div className="flex w-full flex-col gap-2 sm:w-auto sm:max-w-md">
      <Field label="Comment (optional, kept in the history)" error={fe.comment}>
        <Input value={comment} maxLength={500} onChange={(e) => setComment(e.target.value)} placeholder="e.g. rolling back 1.4; vendor outage" className="h-7 text-[12px]" />
      </Field>
      <div className="flex flex-wrap items-center gap-2">
        {a.status === 'firing' && (
          <Button variant="primary" size="sm" disabled={pending} onClick={() => ack.mutate({ id: a.id, ...note })}>
            {ack.isPending ? 'Acknowledging…' : 'Acknowledge'}
          </Button>
        )}
        <span className="inline-flex items-center gap-1">
          <Select aria-label="Silence for" className="h-7 w-28 text-[12px]" value={silenceMs} onChange={(e) => setSilenceMs(Number(e.target.value))}>
            {SILENCE_CHOICES.map((c) => (
              <option key={c.ms} value={c.ms}>
                {c.label}
              </option>
            ))}
          </Select>
          <Button size="sm" disabled={pending} onClick={() => silence.mutate({ id: a.id, durationMs: silenceMs, ...note })}>
            {silence.isPending ? 'Silencing…' : silenced ? 'Extend silence' : 'Silence'}
          </Button>
        </span>
        {silenced && (
          <Button size="sm" disabled={pending} onClick={() => unsilence.mutate({ id: a.id })}>
            {unsilence.isPending ? 'Un-silencing…' : 'Un-silence'}
          </Button>
        )}
        {a.status !== 'resolved' && (
          <Button variant="danger" size="sm" disabled={pending} onClick={() => resolve.mutate({ id: a.id })}>
            {resolve.isPending ? 'Resolving…' : 'Resolve'}
          </Button>
        )}
      </div>
      {error && !fe.comment && <Callout tone="danger">{errorMessage(error)}</Callout>}
    </div>
  );
}

/** "after 4 m" on each event: the episode's clock from firing. */
function eventTiming(e: AlertDetail['events'][number]): string | null {
  const d = e.detail !== null && typeof e.detail === 'object' ? (e.detail as Record<string, unknown>) : {};
  const parts: string[] = [];
  if (e.type !== 'fired' && e.sinceFiredMs >= 0) parts.push(`${formatDuration(e.sinceFiredMs)} after firing`);
  if (e.type === 'silenced' && typeof d.durationMs === 'number') parts.push(`for ${formatDuration(d.durationMs)}`);
  if (e.type === 'unsilenced' && typeof d.remainingMs === 'number') parts.push(`${formatDuration(d.remainingMs)} before the silence would have ended`);
  return parts.length ? parts.join(', ') : null;
}

/** The other alerts of this incident (the task's alerts whose span overlaps this one). */
function Incident({ a }: { a: AlertDetail }) {
  if (a.related.length === 0) return null;
  return (
    <section aria-labelledby="alert-incident" className="rounded-md border border-border p-2">
      <h3 id="alert-incident" className="mb-1 text-[12px] font-semibold">
        One incident: {a.related.length + 1} alerts on <span className="font-mono">{a.task}</span>{' '}
        <span className="font-normal text-subtle">(their firing overlaps this one)</span>
      </h3>
      <ul className="flex flex-col gap-1" data-testid="alert-incident">
        {a.related.map((r) => (
          <li key={r.id} className="flex flex-wrap items-center gap-2 text-[12px]">
            <SeverityBadge severity={r.severity} />
            <Link className="min-w-0 truncate text-accent hover:underline" href={alertsHref({ status: 'all', task: r.task, alert: r.id })} scroll={false}>
              {r.summary}
            </Link>
            <StatusPill status={r.status} />
          </li>
        ))}
      </ul>
    </section>
  );
}

export function AlertDetailPanel({ id, canAct }: { id: number; canAct: boolean }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const q = useQuery({ ...trpc.alerts.get.queryOptions({ id }), refetchInterval: 15_000 });
  if (q.error) return <Callout tone="danger">Could not load alert {id}: {q.error.message}</Callout>;
  const a = q.data;
  if (!a) return <div className="h-96 animate-pulse rounded-lg border border-border bg-surface" aria-label="Loading alert" />;
  const kind = VALUE_KIND[a.rule];
  const evidence = evidenceSeries(a);
  const onDone = async () => {
    await Promise.all([qc.invalidateQueries(trpc.alerts.pathFilter()), qc.invalidateQueries(trpc.metrics.pathFilter())]);
  };
  const silenced = a.silencedUntil && a.silencedUntil.getTime() > Date.now();
  return (
    <article className="flex flex-col gap-3 rounded-lg border border-border bg-surface p-4" data-testid="alert-detail" data-alert-id={a.id} data-status={a.status}>
      <header className="flex flex-wrap items-start justify-between gap-2">
        <div className="min-w-0">
          <div className="flex items-center gap-2">
            <SeverityBadge severity={a.severity} />
            <StatusPill status={a.status} />
            {silenced && (
              <Badge>
                Silenced until{' '}<Timestamp date={a.silencedUntil} />
              </Badge>
            )}
          </div>
          <h2 className="mt-1.5 text-[15px] font-semibold">{a.summary}</h2>
        </div>
        {canAct ? <Actions a={a} onDone={onDone} /> : <span className="text-[12px] text-subtle">Operators can acknowledge, silence or resolve.</span>}
      </header>

      <dl className="grid grid-cols-2 gap-3 rounded-md border border-border bg-surface-2/50 p-3 md:grid-cols-4 xl:grid-cols-3 2xl:grid-cols-4">
        <Fact label="Rule">{a.ruleLabel}</Fact>
        {a.status === 'resolved' ? (
          <Fact label="Peak (at resolve)">
            <span className="font-mono">{formatValue(a.peakValue ?? a.value, kind)}</span> <span className="text-subtle">({formatValue(a.value, kind)})</span>
          </Fact>
        ) : (
          <Fact label="Value (peak)">
            <span className="font-mono">{formatValue(a.value, kind)}</span> <span className="text-subtle">({formatValue(a.peakValue, kind)})</span>
          </Fact>
        )}
        <Fact label={a.rule === 'hotKey' ? 'Dominant share ≥' : a.rule === 'hotPartition' ? 'Factor ≥' : 'Warning line'}>
          <span className="font-mono">{formatValue(a.threshold, a.rule === 'hotKey' ? 'percent' : kind)}</span>
        </Fact>
        <Fact label="Task">
          {a.taskExists ? (
            <Link className="font-mono text-accent hover:underline" href={`/tasks/${encodeURIComponent(a.task)}/metrics`}>
              {a.task}
            </Link>
          ) : (
            <span className="font-mono">{a.task === '' ? 'fleet' : `${a.task} (removed)`}</span>
          )}
        </Fact>
        <Fact label="Fired">
          <Timestamp date={a.firedAt} />
        </Fact>
        <Fact label={a.status === 'resolved' ? 'Lasted' : 'Open for'}>
          <span className="font-mono" data-testid="alert-duration">
            {formatDuration(a.durationMs)}
          </span>
        </Fact>
        <Fact label="Acknowledged">{a.acknowledgedBy ? `${a.acknowledgedBy}` : '—'}</Fact>
        <Fact label="Resolved">{a.resolvedAt ? (a.resolvedBy ? `by ${a.resolvedBy}` : 'automatically') : '—'}</Fact>
        <Fact label="Key">
          <span className="font-mono text-[12px]">{a.key}</span>
        </Fact>
      </dl>

      <Incident a={a} />

      {evidence && a.chart && (
        <ThresholdChart
          id="alert-evidence"
          title={evidence.title}
          subtitle="30 minutes before it fired until it resolved (or now)"
          rows={evidence.rows}
          series={evidence.series}
          kind={CHART_KIND[a.chart.metric]}
          thresholds={a.chart.thresholds}
          from={a.chart.from}
          to={a.chart.to}
          resolutionS={a.chart.resolutionS}
          height={200}
          emptyText="No samples around this alert (roll-ups may have expired)"
        />
      )}

      {a.rule === 'hotPartition' && typeof a.evidence.depth === 'number' && (
        <p className="text-[12px] text-muted" data-testid="alert-evidence-text">
          Depth {formatValue(a.evidence.depth as number, 'count')} vs a sibling median of {formatValue(a.evidence.siblingMedianDepth as number, 'count')}
          {typeof a.evidence.arrivalRatio === 'number' && <> · arrivals {formatValue(a.evidence.arrivalRatio as number, 'ratio')} the siblings&apos; median</>} · routing{' '}
          <span className="font-mono">{String(a.evidence.routing)}</span>
        </p>
      )}

      {a.topKeys.length > 0 && (
        <section aria-labelledby="alert-top-keys">
          <h3 id="alert-top-keys" className="mb-1 text-[12px] font-semibold">
            {a.topKeysAt === 'now' ? 'Top group keys now' : 'Top group keys during the episode'}{' '}
            <span className="font-normal text-subtle">
              (queued + running
              {a.topKeysAt === 'episode' && a.episodeAlertId !== null
                ? a.episodeAlertId === a.id
                  ? ', as recorded while it fired'
                  : `, as recorded by alert #${a.episodeAlertId} while it fired`
                : ''}
              )
            </span>
          </h3>
          <ul className="flex flex-col gap-1" data-testid="alert-top-keys" data-at={a.topKeysAt}>
            {a.topKeys.map((k) => (
              <li key={`${k.group}=${k.key}`} className="grid grid-cols-[minmax(0,12rem)_1fr_auto] items-center gap-2 text-[12px]">
                <Link className="truncate font-mono hover:underline" href={keysViewHref(a.task, k.group, k.key)} title={`${k.group}=${k.key} in the keys view`}>
                  {k.group}=<strong>{k.key}</strong>
                </Link>
                <span className="h-1.5 rounded bg-surface-2">
                  <span className="block h-1.5 rounded bg-accent" style={{ width: `${Math.max(2, Math.round(k.share * 100))}%` }} />
                </span>
                <span className="font-mono text-muted tabular-nums">
                  {formatValue(k.share, 'percent')} · {k.queued} queued · {k.inFlight} running
                  {a.taskExists && (
                    <>
                      {' · '}
                      <Link className="font-sans text-accent hover:underline" href={addOverrideHref(a.task, k.group, k.key)} title={`Add an override for ${k.group}=${k.key} in the task editor`}>
                        override
                      </Link>
                    </>
                  )}
                </span>
              </li>
            ))}
          </ul>
        </section>
      )}

      {a.remedies.length > 0 && (
        <section aria-labelledby="alert-remedies">
          <h3 id="alert-remedies" className="mb-1 text-[12px] font-semibold">
            Suggested remedies
          </h3>
          <ul className="flex flex-col gap-1.5" data-testid="alert-remedies">
            {a.remedies.map((r) => (
              <li key={r.label} className="flex flex-col gap-0.5 rounded-md border border-border p-2 text-[12px] sm:flex-row sm:items-center sm:justify-between sm:gap-3">
                <span className="text-muted">{r.text}</span>
                <Link href={r.href} className="shrink-0 font-medium text-accent hover:underline">
                  {r.label} →
                </Link>
              </li>
            ))}
          </ul>
        </section>
      )}

      <section aria-labelledby="alert-history">
        <h3 id="alert-history" className="mb-1 text-[12px] font-semibold">
          History
        </h3>
        <ol className="flex flex-col gap-1 border-l border-border pl-3" data-testid="alert-history">
          {a.events.map((e) => (
            <li key={e.id} className="text-[12px]">
              <Timestamp date={e.at} /> <strong className="capitalize">{e.type === 'unsilenced' ? 'Un-silenced' : e.type}</strong>
              <span className="text-muted">
                {' '}
                by {e.actor}
                {e.value !== null && e.type !== 'silenced' && e.type !== 'unsilenced' && <> at {formatValue(e.value, kind)}</>}
                {e.silenced && e.type !== 'silenced' && ' (silenced: not notified)'}
              </span>
              {eventTiming(e) && <span className="text-subtle"> · {eventTiming(e)}</span>}
              {e.comment && (
                <q className="mt-0.5 block border-l-2 border-border pl-2 text-fg italic" data-testid="alert-event-comment">
                  {e.comment}
                </q>
              )}
            </li>
          ))}
        </ol>
      </section>
    </article>
  );
}
