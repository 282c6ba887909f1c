'use client';
// The task drill-down: the task's charts for a range, then one row per partition — live
// depth against the depth thresholds, arrival and drain rates, the owner coordinator,
// share of the mean, and a drain-time forecast (depth ÷ net drain rate) — plus the
// heaviest group keys, and the keys at the head of a partition's queue on demand.
import Link from 'next/link';
import { keysViewHref, splitGroupKey } from '@/server/core/key-views';
import { useSearchParams } from 'next/navigation';
import { replaceUrl } from '@/components/ui/replace-url';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc/trpc-provider';
import type { PartitionRow } from '@/server/presenters/task-metrics';
import { Panel } from '@/components/ui/panel';
import { Table, Td, Th, Tr } from '@/components/ui/table';
import { Callout } from '@/components/ui/callout';
import { Badge } from '@/components/ui/badge';
import { cx } from '@/components/ui/class-names';
import { formatDuration, formatValue } from '@/components/charts/chart-format';
import { LiveToggle, RangePicker } from './range-picker';
import { parseRange } from './overview-search-params';
import { TaskChartsGrid } from './task-charts';
import { REFRESH_MS } from './overview-view';
import { ReconcileRepairs } from '@/components/tasks/reconcile-repairs';

/** Staged backpressure (issue 23): normal, throttle (arrivals delayed), policy (reject/shed/spill). */
const STAGE_TONE = { normal: 'text-muted', throttle: 'text-warning', policy: 'text-danger' } as const;

function forecast(p: PartitionRow): { text: string; tone: string } {
  if (p.depth === 0) return { text: 'empty', tone: 'text-subtle' };
  if (p.drainForecastMs === null) return { text: p.netDrainRate === null ? 'no samples' : 'growing', tone: p.netDrainRate === null ? 'text-subtle' : 'text-danger' };
  return { text: `~${formatDuration(p.drainForecastMs)}`, tone: p.drainForecastMs > 3600_000 ? 'text-warning' : 'text-fg' };
}

const DEPTH_TONE = { ok: 'bg-success', warning: 'bg-warning', critical: 'bg-danger', unknown: 'bg-subtle' } as const;

/** A 'group=key' of the drill-down, linking to the task's Keys view with that key pinned. */
function HeadKeyLink({ task, groupKey, children }: { task: string; groupKey: string; children: React.ReactNode }) {
  const gk = splitGroupKey(groupKey);
  if (!gk) return <>{children}</>;
  return (
    <Link href={keysViewHref(task, gk.group, gk.key)} className="hover:opacity-80" title={`${groupKey} in the keys view`}>
      {children}
    </Link>
  );
}

function HeadKeys({ task, partition }: { task: string; partition: number }) {
  const trpc = useTRPC();
  const q = useQuery(trpc.metrics.partitionKeys.queryOptions({ task, partition }));
  if (q.error) return <Callout tone="danger">{q.error.message}</Callout>;
  if (!q.data) return <div className="h-16 animate-pulse rounded bg-surface-2" />;
  if (q.data.sampled === 0) return <p className="text-[12px] text-subtle">Nothing claimable is queued in partition {partition}.</p>;
  return (
    <div data-testid="head-keys">
      <p className="mb-1 text-[12px] text-muted">
        Group keys of the oldest {q.data.sampled.toLocaleString('en-US')} claimable executions in partition {partition}
        {q.data.sampled === q.data.sampleLimit ? ' (a sample of the head of the queue)' : ''}:
      </p>
      {q.data.keys.length === 0 ? (
        <p className="text-[12px] text-subtle">They carry no group keys.</p>
      ) : (
        <ul className="flex flex-wrap gap-1.5">
          {q.data.keys.map((k) => (
            <li key={k.group_key}>
              <HeadKeyLink task={task} groupKey={k.group_key}>
                <Badge>
                  <span className="font-mono">{k.group_key}</span>&nbsp;× {k.executions}
                </Badge>
              </HeadKeyLink>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

export function TaskMetricsView({ task }: { task: string }) {
  const sp = useSearchParams();
  const range = parseRange(sp.get('range'));
  const live = sp.get('live') !== 'off';
  const selected = sp.get('partition') === null ? null : Number(sp.get('partition'));
  const trpc = useTRPC();
  const interval = live ? REFRESH_MS : false;
  const charts = useQuery({ ...trpc.metrics.taskCharts.queryOptions({ task, range }), refetchInterval: interval, placeholderData: keepPreviousData });
  const parts = useQuery({ ...trpc.metrics.taskPartitions.queryOptions({ task }), refetchInterval: interval });
  const href = (next: { range?: string; live?: boolean; partition?: number | null }) => {
    const q = new URLSearchParams();
    const r = next.range ?? range;
    if (r !== '1h') q.set('range', r);
    if (!(next.live ?? live)) q.set('live', 'off');
    const p = next.partition === undefined ? selected : next.partition;
    if (p !== null && p !== undefined) q.set('partition', String(p));
    const s = q.toString();
    return `/tasks/${encodeURIComponent(task)}/metrics${s ? `?${s}` : ''}`;
  };

  return (
    <div className="flex flex-col gap-4">
      <div className="flex flex-wrap items-center justify-end gap-2">
        <LiveToggle live={live} fetching={charts.isFetching || parts.isFetching} onChange={(l) => replaceUrl(href({ live: l }))} />
        <RangePicker value={range} onChange={(r) => replaceUrl(href({ range: r }))} />
      </div>
      {charts.error && <Callout tone="danger">{charts.error.message}</Callout>}
      {charts.data && <TaskChartsGrid charts={charts.data} loading={charts.isPlaceholderData} health />}

      <Panel
        title="Partitions"
        labelledBy="task-partitions"
        actions={
          parts.data && (
            <span className="text-[12px] text-muted">
              imbalance <span className="font-mono text-fg">{formatValue(parts.data.imbalance, 'ratio')}</span> · rates over the last{' '}
              {formatDuration(parts.data.windowMs)}
            </span>
          )
        }
      >
        {parts.error && (
          <div className="p-3">
            <Callout tone="danger">{parts.error.message}</Callout>
          </div>
        )}
        {parts.data && (
          <Table data-testid="partition-table">
            <thead>
              <tr>
                <Th>Partition</Th>
                <Th className="text-right">Depth</Th>
                <Th className="text-right">Running</Th>
                <Th className="text-right">Arrivals</Th>
                <Th className="text-right">Drain</Th>
                <Th className="text-right">× mean</Th>
                <Th>Drain forecast</Th>
                <Th title={`Staged backpressure: throttle from depth ${parts.data.stageLines.throttleLine}, the policy from ${parts.data.stageLines.policyLine}; changes seen by enqueue`}>Stage</Th>
                <Th>Owner</Th>
              </tr>
            </thead>
            <tbody>
              {parts.data.partitions.map((p) => {
                const f = forecast(p);
                return (
                  <Tr key={p.partition} data-testid={`partition-row-${p.partition}`} className={cx(selected === p.partition && 'bg-accent-soft/50')}>
                    <Td>
                      <Link href={href({ partition: selected === p.partition ? null : p.partition })} scroll={false} className="font-mono text-accent hover:underline">
                        {p.partition}
                      </Link>
                    </Td>
                    <Td className="text-right font-mono tabular-nums">
                      <span className="inline-flex items-center gap-1.5">
                        <span className={cx('inline-block h-1.5 w-1.5 rounded-full', DEPTH_TONE[p.depthStatus])} title={`depth ${p.depthStatus}`} />
                        {formatValue(p.depth, 'count')}
                      </span>
                    </Td>
                    <Td className="text-right font-mono tabular-nums">{p.inFlight}</Td>
                    <Td className="text-right font-mono tabular-nums">{formatValue(p.arrivalRate, 'rate')}</Td>
                    <Td className="text-right font-mono tabular-nums">{formatValue(p.drainRate, 'rate')}</Td>
                    <Td className={cx('text-right font-mono tabular-nums', (p.shareOfMean ?? 0) >= parts.data.thresholds.imbalance.warning && 'text-warning')}>
                      {formatValue(p.shareOfMean, 'ratio')}
                    </Td>
                    <Td className={cx('font-mono tabular-nums', f.tone)} data-testid="drain-forecast">
                      {f.text}
                    </Td>
                    <Td data-testid="bp-stage" title={`${p.stageChanges} stage change${p.stageChanges === 1 ? '' : 's'}`}>
                      <span className={cx('text-[12px]', STAGE_TONE[p.stage])}>{p.stage}</span>
                      {p.stageChanges > 0 && <span className="ml-1 font-mono text-[11px] text-subtle">×{p.stageChanges}</span>}
                    </Td>
                    <Td>
                      {p.owner ? (
                        <span className={cx('text-[12px]', !p.owner.live && 'text-danger')} title={p.owner.id}>
                          {p.owner.name}
                          <span className="text-subtle"> @ {p.owner.host}</span>
                          {!p.owner.live && ' (stale)'}
                        </span>
                      ) : (
                        <span className="text-[12px] text-danger">unowned</span>
                      )}
                    </Td>
                  </Tr>
                );
              })}
            </tbody>
          </Table>
        )}
        {selected !== null && Number.isInteger(selected) && (
          <div className="border-t border-border p-3">
            <HeadKeys task={task} partition={selected} />
          </div>
        )}
      </Panel>

      {parts.data && parts.data.topKeys.length > 0 && (
        <Panel
          title="Heaviest group keys"
          labelledBy="task-top-keys"
          actions={
            <Link href={keysViewHref(task)} className="text-[12px] text-accent hover:underline">
              All keys →
            </Link>
          }
        >
          <Table>
            <thead>
              <tr>
                <Th>Group</Th>
                <Th>Key</Th>
                <Th className="text-right">Queued</Th>
                <Th className="text-right">Running</Th>
                <Th className="text-right">Share of group</Th>
              </tr>
            </thead>
            <tbody>
              {parts.data.topKeys.map((k) => (
                <Tr key={`${k.group}=${k.key}`}>
                  <Td className="font-mono">{k.group}</Td>
                  <Td className="font-mono">
                    <Link href={keysViewHref(task, k.group, k.key)} className="text-accent hover:underline">
                      {k.key}
                    </Link>
                  </Td>
                  <Td className="text-right font-mono tabular-nums">{k.queued}</Td>
                  <Td className="text-right font-mono tabular-nums">{k.inFlight}</Td>
                  <Td className="text-right font-mono tabular-nums">{formatValue(k.share, 'percent')}</Td>
                </Tr>
              ))}
            </tbody>
          </Table>
        </Panel>
      )}
      {parts.data && <ReconcileRepairs repairs={parts.data.reconcileRepairs} />}
    </div>
  );
}
