'use client';
// The Overview: fleet health, one card per task with its worst status, the open alerts
// (critical first), and the charts of the selected task. Range, task and live refresh
// are in the URL; while live, the query refetches every 10 s and keeps the previous data
// on screen during a range change.
import Link from 'next/link';
import { executionsHref } from '@/components/executions/execution-search-params';
import { alertsHref } from '@/components/alerts/alert-search-params';
import { OpenAlerts } from '@/components/alerts/open-alerts';
import { replicaBehind } from '@/components/shell/replica-lag-notice';
import { useSearchParams } from 'next/navigation';
import { replaceUrl } from '@/components/ui/replace-url';
import { useEffect, useRef, useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc/trpc-provider';
import type { Overview, TaskCard } from '@/server/presenters/overview';
import type { ThresholdMetric, ThresholdStatus } from '@/server/core/thresholds';
import { Badge, type Tone } from '@/components/ui/badge';
import { Callout } from '@/components/ui/callout';
import { Command, EmptyState } from '@/components/ui/empty-state';
import { cx } from '@/components/ui/class-names';
import { formatDuration, formatValue, type ValueKind } from '@/components/charts/chart-format';
import { formatUtc } from '@/components/ui/timestamp';
import { LiveToggle, RangePicker } from './range-picker';
import { TaskChartsGrid } from './task-charts';
import { overviewHref, overviewParams, overviewQueryInput, type OverviewParams } from './overview-search-params';

export const REFRESH_MS = 10_000;
/** Live data older than this (two missed refreshes and a half) is called stale. */
export const STALE_AFTER_MS = 25_000;

const STATUS_TONE: Record<ThresholdStatus, Tone> = { ok: 'success', warning: 'warning', critical: 'danger', unknown: 'neutral' };
const STATUS_LABEL: Record<ThresholdStatus, string> = { ok: 'Healthy', warning: 'Warning', critical: 'Critical', unknown: 'No data' };
const METRIC_LABEL: Record<ThresholdMetric, string> = {
  depth: 'depth',
  imbalance: 'imbalance',
  retryRate: 'retry rate',
  dlqRate: 'DLQ rate',
  p99LatencyMs: 'p99',
};
const METRIC_KIND: Record<ThresholdMetric, ValueKind> = { depth: 'count', imbalance: 'ratio', retryRate: 'percent', dlqRate: 'percent', p99LatencyMs: 'ms' };

export function StatusBadge({ status }: { status: ThresholdStatus }) {
  return <Badge tone={STATUS_TONE[status]}>{STATUS_LABEL[status]}</Badge>;
}

function Stat({
  label,
  value,
  tone,
  href,
  title,
  testId,
  note,
}: {
  label: string;
  value: string;
  /** A small line under the value (e.g. how much of it is fleet-wide). */
  note?: string | undefined;
  tone?: 'danger' | 'warning' | 'success';
  href?: string;
  title?: string;
  testId?: string;
}) {
  const body = (
    <>
      <div className="text-[11px] font-medium tracking-wide text-muted uppercase">{label}</div>
      <div className={cx('mt-0.5 font-mono text-[20px] font-semibold tabular-nums', tone === 'danger' ? 'text-danger' : tone === 'warning' ? 'text-warning' : tone === 'success' ? 'text-success' : 'text-fg')}>
        {value}
        {note && <span className="ml-1.5 font-sans text-[11px] font-normal text-muted">{note}</span>}
      </div>
    </>
  );
  return href ? (
    <Link href={href} title={title} data-testid={testId} className="rounded-lg border border-border bg-surface px-3 py-2.5 hover:border-border-strong">
      {body}
    </Link>
  ) : (
    <div title={title} data-testid={testId} className="rounded-lg border border-border bg-surface px-3 py-2.5">
      {body}
    </div>
  );
}

function FleetStrip({ fleet }: { fleet: Overview['fleet'] }) {
  const firing = fleet.alertsFiring.critical + fleet.alertsFiring.warning;
  const fleetFiring = fleet.fleetAlertsFiring.critical + fleet.fleetAlertsFiring.warning;
  return (
    <section aria-label="Fleet health" className="grid grid-cols-2 gap-3 md:grid-cols-4 xl:grid-cols-7" data-testid="fleet-strip">
      <Stat
        label="Coordinators live"
        value={`${fleet.coordinatorsLive}${fleet.coordinatorsRegistered > fleet.coordinatorsLive ? ` / ${fleet.coordinatorsRegistered}` : ''}`}
        tone={fleet.coordinatorsLive === 0 && fleet.tasks > 0 ? 'danger' : undefined}
        href="/coordinators"
      />
      <Stat label="Tasks" value={String(fleet.tasks)} href="/tasks" />
      <Stat label="Critical tasks" value={String(fleet.tasksByStatus.critical)} tone={fleet.tasksByStatus.critical ? 'danger' : undefined} />
      <Stat label="Warning tasks" value={String(fleet.tasksByStatus.warning)} tone={fleet.tasksByStatus.warning ? 'warning' : undefined} />
      <Stat
        label="Alerts firing"
        value={String(firing)}
        note={fleetFiring ? `${fleetFiring} fleet-wide` : undefined}
        tone={fleet.alertsFiring.critical ? 'danger' : firing ? 'warning' : undefined}
        href="/alerts"
        title="Firing alerts of every task plus the fleet's own (coordinators, Postgres, maintenance)"
        testId="fleet-alerts-firing"
      />
      <Stat
        label="Circuits open"
        value={String(fleet.breakersOpen)}
        tone={fleet.breakersOpen ? 'danger' : undefined}
        title="Tasks whose circuit breaker is open or half-open: not claimed, or only probes"
        testId="fleet-breakers-open"
      />
      {/* With a read replica, the charts are as old as the roll-up delay plus the replica's lag. */}
      <Stat
        label={fleet.replica && replicaBehind({ lagMs: fleet.replica.lagMs, dataDelayMs: fleet.rollupLagMs }) ? 'Data delay (replica)' : 'Data delay'}
        value={fleet.rollupLagMs === null ? '—' : formatDuration(fleet.rollupLagMs + (fleet.replica?.lagMs ?? 0))}
        tone={fleet.rollupLagMs !== null && fleet.rollupLagMs + (fleet.replica?.lagMs ?? 0) > 60_000 ? 'warning' : undefined}
      />
    </section>
  );
}

const SEVERITY_RANK: Record<ThresholdStatus, number> = { critical: 0, warning: 1, ok: 2, unknown: 3 };

function TaskCardView({ card, selected, href, onPick }: { card: TaskCard; selected: boolean; href: string; onPick: () => void }) {
  // Critical breaches first, like the alerts.
  const breaches = [...card.health.breaches].sort((a, b) => SEVERITY_RANK[card.health.metrics[a].status] - SEVERITY_RANK[card.health.metrics[b].status]);
  const alerts = card.openAlerts.critical + card.openAlerts.warning;
  return (
    <li className="relative">
      <Link
        href={href}
        scroll={false}
        // A plain click picks the task in place (the address changes through the history API,
        // no server render); a modified or middle click still opens the link.
        onClick={(e) => {
          if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
          e.preventDefault();
          onPick();
        }}
        aria-current={selected ? 'true' : undefined}
        data-testid={`task-card-${card.task}`}
        data-status={card.worst}
        className={cx(
          'flex h-full flex-col gap-2 rounded-lg border bg-surface p-3 transition-colors hover:border-border-strong',
          selected ? 'border-accent ring-1 ring-accent' : 'border-border',
          card.worst === 'critical' && 'border-l-4 border-l-danger',
          card.worst === 'warning' && 'border-l-4 border-l-warning',
        )}
      >
        <div className="flex items-start justify-between gap-2">
          <span className="truncate font-mono text-[13px] font-semibold">{card.task}</span>
          <span className="flex items-center gap-1">
            {card.paused && <Badge tone="warning">Paused</Badge>}
            {/* A paused task is not "healthy": with nothing wrong besides, the badge says paused only. */}
            {!(card.paused && (card.worst === 'ok' || card.worst === 'unknown')) && (
              <span title={card.worstFrom === 'alerts' ? 'From firing alerts; the metrics are within thresholds now' : undefined} data-testid="task-card-status">
                <StatusBadge status={card.worst} />
              </span>
            )}
          </span>
        </div>
        <dl className="grid grid-cols-3 gap-2 text-[11px]">
          <div>
            <dt className="text-subtle">Depth</dt>
            <dd className="font-mono text-[13px] text-fg tabular-nums">{formatValue(card.depth, 'count')}</dd>
          </div>
          <div>
            <dt className="text-subtle">Running</dt>
            <dd className="font-mono text-[13px] text-fg tabular-nums">
              {card.inFlight}
              <span className="text-subtle">/{card.concurrency}</span>
            </dd>
          </div>
          <div>
            <dt className="text-subtle">Throughput</dt>
            <dd className="font-mono text-[13px] text-fg tabular-nums">{formatValue(card.throughput, 'rate')}</dd>
          </div>
        </dl>
        <div className="mt-auto flex min-h-5 flex-wrap items-center gap-1 text-[11px]">
          {breaches.length === 0 && (
            <span className="text-subtle">
              {card.worst === 'unknown' ? 'No samples yet' : card.worstFrom === 'alerts' ? 'Metrics back within thresholds' : 'All metrics within thresholds'}
            </span>
          )}
          {breaches.map((m) => (
            <Badge key={m} tone={card.health.metrics[m].status === 'critical' ? 'danger' : 'warning'}>
              {METRIC_LABEL[m]} {formatValue(card.health.metrics[m].value, METRIC_KIND[m])}
            </Badge>
          ))}
          {/* Room for the alerts link below (a link cannot sit inside the card's link). */}
          {alerts > 0 && !card.breaker && (
            <span className="invisible ml-auto" aria-hidden="true">
              {alerts} alert{alerts === 1 ? '' : 's'}
            </span>
          )}
        </div>
        {/* With a breaker not closed, a row of its own for the breaker link (and the alerts link). */}
        {card.breaker && <div className="h-4" aria-hidden="true" />}
      </Link>
      {card.breaker && (
        <Link
          href={`/tasks/${encodeURIComponent(card.task)}#task-breaker`}
          className="absolute bottom-3 left-3 text-[11px] font-medium text-danger hover:underline"
          title={card.breaker.reason}
          data-testid={`task-card-breaker-${card.task}`}
        >
          {card.breaker.state === 'open' ? 'Circuit open' : 'Circuit half-open'}
        </Link>
      )}
      {alerts > 0 && (
        <Link
          href={alertsHref({ status: 'open', task: card.task })}
          className="absolute right-3 bottom-3 text-[11px] text-danger hover:underline"
          data-testid={`task-card-alerts-${card.task}`}
        >
          {alerts} alert{alerts === 1 ? '' : 's'}
        </Link>
      )}
    </li>
  );
}

export function OverviewView() {
  const sp = useSearchParams();
  const params = overviewParams((k) => sp.get(k));
  const trpc = useTRPC();
  // The task whose charts are shown stays put: with none in the address, the first one
  // shown (the worst then) is pinned for this view, so a re-sort of the cards never
  // switches the charts to another task. (Pinned in state, not written into the address:
  // a replace racing the operator's first click would undo the click.)
  const [pinned, setPinned] = useState<string | null>(null);
  const q = useQuery({
    ...trpc.metrics.overview.queryOptions(overviewQueryInput({ ...params, task: params.task ?? pinned ?? undefined })),
    refetchInterval: params.live ? REFRESH_MS : false,
    placeholderData: keepPreviousData,
    staleTime: 5_000,
    retry: 1,
  });
  const go = (p: Partial<OverviewParams>) => replaceUrl(overviewHref({ ...params, ...p }));
  const data = q.data;
  // Disconnected: the last refresh failed, or (live) no fresh data for STALE_AFTER_MS.
  const stale = useStale(q.dataUpdatedAt, q.isError, params.live) && Boolean(data);

  const selectedTask = data?.selectedTask ?? null;
  useEffect(() => {
    if (!params.task && !pinned && selectedTask) setPinned(selectedTask);
  }, [params.task, pinned, selectedTask]);

  const cards = useHeldOrder(data?.cards ?? []);
  // The task the charts' heading and links name: the one just picked while its data loads
  // (the previous task's charts stay on screen, marked loading), so a link clicked in that
  // moment opens the picked task, not the one being replaced.
  const chartTask = q.isPlaceholderData && params.task ? params.task : (data?.charts?.task ?? null);

  return (
    <div className="flex flex-col gap-4">
      {q.error && !data && <Callout tone="danger">Could not load the overview: {q.error.message}</Callout>}
      {stale && data && (
        <div role="status" data-testid="overview-stale">
          <Callout tone="warning">
            <strong>Disconnected — data is stale.</strong> Showing what was read at {formatUtc(new Date(q.dataUpdatedAt)).slice(11)} UTC (<Age since={q.dataUpdatedAt} /> ago)
            {q.error ? `; the last refresh failed: ${q.error.message}` : ''}. {params.live ? 'Retrying every 10 s.' : ''}
          </Callout>
        </div>
      )}
      {data && <FleetStrip fleet={data.fleet} />}
      {data && data.cards.length === 0 && (
        <section className="rounded-lg border border-border bg-surface">
          <EmptyState title="No tasks yet">
            Apply a config with <Command>npx sluice config apply sluice.yaml</Command> or <Link className="text-accent hover:underline" href="/tasks/new">create a task</Link>; its charts appear here once coordinators report samples.
          </EmptyState>
        </section>
      )}
      {data && data.cards.length > 0 && (
        <section aria-labelledby="overview-tasks">
          <h2 id="overview-tasks" className="mb-2 text-[13px] font-semibold">
            Tasks <span className="font-normal text-subtle">— worst first; pick one to chart it</span>
          </h2>
          <ul className="grid grid-cols-1 gap-3 sm:grid-cols-2 xl:grid-cols-4" data-testid="task-cards" {...cards.holdProps}>
            {cards.list.map((c) => (
              <TaskCardView key={c.task} card={c} selected={c.task === data.selectedTask} href={overviewHref({ ...params, task: c.task })} onPick={() => go({ task: c.task })} />
            ))}
          </ul>
        </section>
      )}
      {data && <OpenAlerts />}
      {!data && !q.error && (
        <div className="grid grid-cols-1 gap-3 lg:grid-cols-2" aria-busy="true" aria-label="Loading overview">
          {Array.from({ length: 4 }, (_, i) => (
            <div key={i} className="h-56 animate-pulse rounded-lg border border-border bg-surface" />
          ))}
        </div>
      )}
      {data?.charts && chartTask && (
        <section aria-labelledby="overview-charts" className="flex flex-col gap-2">
          <div className="flex flex-wrap items-center justify-between gap-2">
            <h2 id="overview-charts" className="text-[13px] font-semibold">
              <span className="font-mono">{chartTask}</span>
              <Link href={`/tasks/${encodeURIComponent(chartTask)}/metrics${params.range !== '1h' ? `?range=${params.range}` : ''}`} className="ml-3 text-[12px] font-normal text-accent hover:underline">
                Partitions and drain forecast →
              </Link>
              <Link href={executionsHref({ task: chartTask, state: 'queued' })} className="ml-3 text-[12px] font-normal text-accent hover:underline" data-testid="overview-queued-executions">
                Queued executions →
              </Link>
              <Link href={executionsHref({ task: chartTask })} className="ml-3 text-[12px] font-normal text-accent hover:underline">
                All executions →
              </Link>
            </h2>
            <div className="flex items-center gap-2">
              <LiveToggle live={params.live} fetching={q.isFetching} stale={stale} onChange={(live) => go({ live })} />
              <RangePicker value={params.range} onChange={(range) => go({ range })} />
            </div>
          </div>
          <TaskChartsGrid charts={data.charts} loading={q.isPlaceholderData} />
        </section>
      )}
    </div>
  );
}

/**
 * True when the last fetch failed, or (live) when no fresh data came for STALE_AFTER_MS.
 * A timer set for that moment, not a clock: the page re-renders when the answer changes,
 * not every second.
 */
function useStale(dataUpdatedAt: number, isError: boolean, live: boolean): boolean {
  const [late, setLate] = useState(false);
  useEffect(() => {
    setLate(false);
    if (!live || !dataUpdatedAt) return;
    const id = setTimeout(() => setLate(true), Math.max(0, dataUpdatedAt + STALE_AFTER_MS - Date.now()));
    return () => clearTimeout(id);
  }, [dataUpdatedAt, live]);
  return isError || late;
}

/** How long ago `since` was, ticking each second (only while shown). */
function Age({ since }: { since: number }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const id = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(id);
  }, []);
  return <>{formatDuration(Math.max(0, now - since))}</>;
}

/**
 * The cards in the server's order (worst first), except while the pointer or focus is in
 * the list: then the order on screen holds (new cards go last), so a card does not move
 * under the cursor between a refresh and the click.
 */
function useHeldOrder(cards: TaskCard[]): { list: TaskCard[]; holdProps: Record<string, unknown> } {
  const [holding, setHolding] = useState(false);
  const shown = useRef<string[]>([]);
  let list = cards;
  if (holding && shown.current.length) {
    const rank = new Map(shown.current.map((t, i) => [t, i]));
    list = [...cards].sort((a, b) => (rank.get(a.task) ?? Infinity) - (rank.get(b.task) ?? Infinity));
  }
  useEffect(() => {
    shown.current = list.map((c) => c.task);
  });
  return {
    list,
    holdProps: {
      'data-held': holding ? 'true' : 'false',
      onPointerEnter: () => setHolding(true),
      onPointerLeave: () => setHolding(false),
      onFocus: () => setHolding(true),
      onBlur: (e: React.FocusEvent<HTMLElement>) => {
        if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setHolding(false);
      },
    },
  };
}
