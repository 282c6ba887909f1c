'use client';
// A time-series chart drawn against a task's warning and critical thresholds: the two
// lines (labelled, with data-testid/data-value so tests can read what was drawn), faint
// bands above them, breach points coloured, a tooltip listing every series at that
// bucket, a legend, and honest loading / empty states. Gaps in the data stay gaps.
import { useMemo, useState } from 'react';
import Link from 'next/link';
import { CartesianGrid, Line, LineChart, ReferenceArea, ReferenceLine, Tooltip, XAxis, YAxis } from 'recharts';
import { cx } from '@/components/ui/class-names';
import { firstDataAt, fitTimeDomain, peakOf, thresholdLabelLayout, yScale, type YThreshold } from '@/server/core/chart-scale';
import { formatAxisValue, formatTick, formatTooltipTime, formatValue, timeTicks, type ValueKind } from './chart-format';

export interface SeriesDef {
  key: string;
  name: string;
  color: string;
  /** Thinner, dimmer line (e.g. siblings for comparison). */
  muted?: boolean;
  dashed?: boolean;
}

export type ChartRow = { t: number } & Record<string, number | null>;

export interface Thresholds {
  warning: number;
  critical: number;
}

/** A change drawn on the time axis: a config version applied, a pause, a replay, a purge. */
export interface ChartMarker {
  /** ms epoch. */
  t: number;
  kind: 'config' | 'pause' | 'resume' | 'replay' | 'purge' | 'guarded' | 'promoted' | 'rolled-back';
  /** One line, e.g. "v12 · lower tenant limit". */
  label: string;
  /** Who did it. */
  by?: string;
  href: string;
}

const MARKER_COLOR: Record<ChartMarker['kind'], string> = {
  config: 'var(--accent)',
  pause: 'var(--warning)',
  resume: 'var(--success)',
  replay: 'var(--success)',
  purge: 'var(--danger)',
  guarded: 'var(--warning)',
  promoted: 'var(--success)',
  'rolled-back': 'var(--danger)',
};
const MARKER_GLYPH: Record<ChartMarker['kind'], string> = { config: 'V', pause: 'P', resume: 'R', replay: '↻', purge: '✕', guarded: 'G', promoted: '✓', 'rolled-back': '↶' };
const MARKER_NAME: Record<ChartMarker['kind'], string> = {
  config: 'Config applied',
  pause: 'Paused',
  resume: 'Resumed',
  replay: 'Replay',
  purge: 'Purge',
  guarded: 'Applied with guard',
  promoted: 'Guard promoted',
  'rolled-back': 'Rolled back',
};

export interface ThresholdChartProps {
  /** Used for data-testid="chart-<id>". */
  id: string;
  title: string;
  subtitle?: string;
  rows: ChartRow[];
  series: SeriesDef[];
  kind: ValueKind;
  thresholds: Thresholds | null;
  from: number;
  to: number;
  resolutionS: number;
  loading?: boolean;
  height?: number;
  /** Shown under the chart instead of per-series entries (e.g. "64 partitions"). */
  legendNote?: string;
  emptyText?: string;
  /** Changes to mark on the time axis (optional). */
  markers?: ChartMarker[];
  /**
   * Start the x-axis where this chart's data starts (default). Off when a grid of charts
   * shares one fitted axis (TaskChartsGrid) so they line up.
   */
  fitX?: boolean;
}

type Status = 'ok' | 'warning' | 'critical' | 'unknown';

function statusOf(v: number | null, t: Thresholds | null): Status {
  if (v === null) return 'unknown';
  if (!t) return 'ok';
  return v > t.critical ? 'critical' : v > t.warning ? 'warning' : 'ok';
}

const STATUS_TEXT: Record<Status, string> = {
  ok: 'text-success',
  warning: 'text-warning',
  critical: 'text-danger',
  unknown: 'text-subtle',
};

/**
 * A threshold line's label. Warning and critical on one line (the shed rule's 0 and 0)
 * get one label, on the critical line, instead of two printed over each other.
 */
function thresholdText(k: 'warning' | 'critical', t: { warning: number; critical: number }, kind: ValueKind, shownCount: number, merged: boolean): string {
  if (t.warning === t.critical && shownCount > 1) return k === 'critical' ? `warning = critical ${formatValue(t.critical, kind)}` : '';
  // Lines a few pixels apart (DLQ rate's 1% and 5% on a scale reaching 100%): one label
  // on the critical line names both, rather than two printed over each other.
  if (merged) return k === 'critical' ? `warning ${formatValue(t.warning, kind)} · critical ${formatValue(t.critical, kind)}` : '';
  return `${k} ${formatValue(t[k], kind)}`;
}

function ThresholdLabel(props: {
  viewBox?: { x?: number; y?: number; width?: number };
  kind: 'warning' | 'critical';
  value: number;
  text: string;
  below?: boolean;
}) {
  const { viewBox, kind, value, text, below } = props;
  if (!viewBox || viewBox.x === undefined || viewBox.y === undefined || viewBox.width === undefined) return null;
  return (
    <g data-testid={`threshold-${kind}`} data-value={value} data-placement="line" data-label={text}>
      <text
        x={viewBox.x + viewBox.width - 4}
        y={below ? viewBox.y + 11 : viewBox.y - 4}
        textAnchor="end"
        fontSize={10}
        fontWeight={600}
        fill={kind === 'critical' ? 'var(--danger)' : 'var(--warning)'}
      >
        {text}
      </text>
    </g>
  );
}

/** A marker's flag, at the foot of its line (the top edge is where off-scale thresholds are named). */
function MarkerFlag(props: { viewBox?: { x?: number; y?: number; height?: number }; marker: ChartMarker; onHover: (m: ChartMarker | null, x: number) => void }) {
  const { viewBox, marker, onHover } = props;
  if (!viewBox || viewBox.x === undefined || viewBox.y === undefined) return null;
  const x = viewBox.x;
  const y = viewBox.y + (viewBox.height ?? 0) + 1;
  return (
    <g
      data-testid="chart-marker"
      data-kind={marker.kind}
      data-t={marker.t}
      style={{ cursor: 'pointer' }}
      onMouseEnter={() => onHover(marker, x)}
      onClick={() => onHover(marker, x)}
    >
      <rect x={x - 6} y={y - 13} width={12} height={12} rx={2} fill={MARKER_COLOR[marker.kind]} />
      <text x={x} y={y - 4} textAnchor="middle" fontSize={8} fontWeight={700} fill="var(--surface)">
        {MARKER_GLYPH[marker.kind]}
      </text>
    </g>
  );
}

/** The value a card header shows: the worst (max) series value in the last bucket with data. */
function latest(rows: ChartRow[], series: SeriesDef[]): number | null {
  for (let i = rows.length - 1; i >= 0; i--) {
    const vals = series.filter((s) => !s.muted).map((s) => rows[i]![s.key]).filter((v): v is number => v !== null && v !== undefined);
    if (vals.length) return Math.max(...vals);
  }
  return null;
}

interface TooltipPayloadItem {
  dataKey?: string | number;
  value?: number | null;
  color?: string;
  name?: string;
}

function ChartTooltip({ active, payload, label, kind, thresholds, resolutionS }: {
  active?: boolean;
  payload?: TooltipPayloadItem[];
  label?: number;
  kind: ValueKind;
  thresholds: Thresholds | null;
  resolutionS: number;
}) {
  if (!active || !payload?.length || label === undefined) return null;
  const items = payload
    .filter((p) => p.value !== null && p.value !== undefined)
    .sort((a, b) => (b.value ?? 0) - (a.value ?? 0));
  const shown = items.slice(0, 10);
  return (
    <div className="min-w-44 rounded-md border border-border bg-surface px-2.5 py-2 text-[12px] shadow-lg" data-testid="chart-tooltip">
      <div className="mb-1 font-mono text-[11px] text-muted">{formatTooltipTime(label, resolutionS)}</div>
      {shown.length === 0 && <div className="text-subtle">No samples in this bucket</div>}
      {shown.map((p) => {
        const st = statusOf(p.value ?? null, thresholds);
        return (
          <div key={String(p.dataKey)} className="flex items-center justify-between gap-4 py-px">
            <span className="flex items-center gap-1.5 text-muted">
              <span className="inline-block h-2 w-2 rounded-full" style={{ background: p.color }} />
              {p.name}
            </span>
            <span className={cx('font-mono tabular-nums', st === 'ok' ? 'text-fg' : STATUS_TEXT[st])}>{formatValue(p.value, kind)}</span>
          </div>
        );
      })}
      {items.length > shown.length && <div className="pt-0.5 text-subtle">+{items.length - shown.length} more</div>}
      {thresholds && (
        <div className="mt-1 border-t border-border pt-1 text-[11px] text-subtle">
          warning &gt; {formatValue(thresholds.warning, kind)} · critical &gt; {formatValue(thresholds.critical, kind)}
        </div>
      )}
    </div>
  );
}

export function ThresholdChart(p: ThresholdChartProps) {
  const { rows, series, kind, thresholds, to, resolutionS, height = 190 } = p;
  const markers = p.markers ?? [];
  const [hovered, setHovered] = useState<{ marker: ChartMarker; x: number } | null>(null);
  const hasData = useMemo(() => rows.some((r) => series.some((s) => r[s.key] !== null && r[s.key] !== undefined)), [rows, series]);
  const current = latest(rows, series);
  const status = statusOf(current, thresholds);
  // The x-axis starts where the data does (a young task fills the width); the y-axis fits
  // the data, with 1-2-5 ticks, and thresholds far above it named at the top edge.
  const keys = useMemo(() => series.map((s) => s.key), [series]);
  const fitX = p.fitX ?? true;
  const x = useMemo(
    () => (fitX ? fitTimeDomain(p.from, to, firstDataAt(rows, keys), resolutionS * 1000) : { from: p.from, to, fitted: false }),
    [fitX, p.from, to, rows, keys, resolutionS],
  );
  const from = x.from;
  // Buckets before the fitted start are empty; left in, they would stretch the axis back.
  const drawn = useMemo(() => rows.filter((r) => r.t >= x.from), [rows, x]);
  const ticks = useMemo(() => timeTicks(from, to), [from, to]);
  const y = useMemo(() => {
    const th: YThreshold[] = thresholds ? [{ name: 'warning', value: thresholds.warning }, { name: 'critical', value: thresholds.critical }] : [];
    return yScale(peakOf(rows, keys), kind, th);
  }, [rows, keys, kind, thresholds]);
  const axisWidth = useMemo(() => Math.max(30, 8 + 6 * Math.max(...y.ticks.map((v) => formatAxisValue(v, kind, y.step).length))), [y, kind]);
  const visibleMarkers = markers.filter((m) => m.t >= from && m.t <= to);
  const breachDot = (color: string) =>
    function Dot(props: { cx?: number; cy?: number; value?: number | null; index?: number }) {
      const v = props.value;
      if (!thresholds || v === null || v === undefined || props.cx === undefined || props.cy === undefined || v <= thresholds.warning) {
        return <g key={props.index} />;
      }
      return (
        <circle
          key={props.index}
          cx={props.cx}
          cy={props.cy}
          r={1.75}
          fill={v > thresholds.critical ? 'var(--danger)' : 'var(--warning)'}
          stroke={color}
          strokeWidth={0}
          data-breach={v > thresholds.critical ? 'critical' : 'warning'}
        />
      );
    };

  return (
    <figure
      className="flex min-w-0 flex-col rounded-lg border border-border bg-surface"
      data-testid={`chart-${p.id}`}
      data-state={p.loading ? 'loading' : hasData ? 'ready' : 'empty'}
      data-points={rows.length}
      data-x-from={from}
      data-x-to={to}
      data-x-fitted={x.fitted ? 'true' : 'false'}
      data-y-max={y.domain[1]}
      aria-label={p.title}
    >
      <figcaption className="flex items-start justify-between gap-3 px-3 pt-2.5">
        <div className="min-w-0">
          <div className="text-[13px] font-semibold">{p.title}</div>
          {p.subtitle && <div className="truncate text-[11px] text-subtle">{p.subtitle}</div>}
        </div>
        <div className="text-right">
          <div className={cx('font-mono text-[15px] font-semibold tabular-nums', STATUS_TEXT[status])} data-testid="chart-current">
            {formatValue(current, kind)}
          </div>
          {thresholds && (
            <div className="text-[10px] whitespace-nowrap text-subtle">
              <span className="text-warning">▬</span> {formatValue(thresholds.warning, kind)} <span className="text-danger">▬</span>{' '}
              {formatValue(thresholds.critical, kind)}
            </div>
          )}
        </div>
      </figcaption>
      <div className="relative px-1 pb-1" style={{ height }} onMouseLeave={() => setHovered(null)}>
        {p.loading ? (
          <div className="m-2 h-[calc(100%-1rem)] animate-pulse rounded bg-surface-2" aria-label="Loading chart" />
        ) : !hasData ? (
          <div className="flex h-full flex-col items-center justify-center gap-1 text-center text-[12px] text-subtle">
            <span>{p.emptyText ?? 'No samples in this range'}</span>
            {thresholds && (
              <span className="text-[11px]">
                warning &gt; {formatValue(thresholds.warning, kind)} · critical &gt; {formatValue(thresholds.critical, kind)}
              </span>
            )}
          </div>
        ) : (
          <>
          <LineChart responsive data={drawn} margin={{ top: 16, right: 10, bottom: 0, left: 0 }} style={{ width: '100%', height: '100%' }}>
            <CartesianGrid stroke="var(--border)" strokeDasharray="3 3" vertical={false} />
            <XAxis
              dataKey="t"
              type="number"
              scale="time"
              domain={[from, to]}
              ticks={ticks}
              tickFormatter={(t: number) => formatTick(t, to - from)}
              tick={{ fontSize: 10, fill: 'var(--subtle)' }}
              tickLine={false}
              axisLine={{ stroke: 'var(--border)' }}
              minTickGap={24}
            />
            <YAxis
              width={axisWidth}
              tickFormatter={(v: number) => formatAxisValue(v, kind, y.step)}
              tick={{ fontSize: 10, fill: 'var(--subtle)' }}
              tickLine={false}
              axisLine={false}
              domain={y.domain}
              ticks={y.ticks}
              interval={0}
            />
            {thresholds && (
              <>
                {thresholds.warning < y.domain[1] && (
                  <ReferenceArea y1={thresholds.warning} y2={Math.min(thresholds.critical, y.domain[1])} fill="var(--warning)" fillOpacity={0.05} ifOverflow="hidden" />
                )}
                {thresholds.critical < y.domain[1] && <ReferenceArea y1={thresholds.critical} y2={y.domain[1]} fill="var(--danger)" fillOpacity={0.06} ifOverflow="hidden" />}
                {y.shown.map(({ name: k }) => {
                  const layout = thresholdLabelLayout(thresholds, y.domain, y.shown, y.offScale.length > 0, height);
                  return (
                  <ReferenceLine
                    key={k}
                    y={thresholds[k]}
                    stroke={k === 'critical' ? 'var(--danger)' : 'var(--warning)'}
                    strokeDasharray="5 4"
                    strokeWidth={1.25}
                    ifOverflow="hidden"
                    className={`threshold-${k}`}
                    label={<ThresholdLabel kind={k} value={thresholds[k]} below={layout.below[k]} text={thresholdText(k, thresholds, kind, y.shown.length, layout.merged)} />}
                  />
                  );
                })}
              </>
            )}
            {visibleMarkers.map((m, i) => (
              <ReferenceLine
                key={`m${i}`}
                x={m.t}
                stroke={MARKER_COLOR[m.kind]}
                strokeOpacity={0.7}
                strokeDasharray="2 3"
                ifOverflow="discard"
                label={<MarkerFlag marker={m} onHover={(mk, px) => setHovered(mk ? { marker: mk, x: px } : null)} />}
              />
            ))}
            <Tooltip
              content={<ChartTooltip kind={kind} thresholds={thresholds} resolutionS={resolutionS} />}
              cursor={{ stroke: 'var(--border-strong)', strokeWidth: 1 }}
              isAnimationActive={false}
            />
            {series.map((s) => (
              <Line
                key={s.key}
                dataKey={s.key}
                name={s.name}
                type="monotone"
                stroke={s.color}
                strokeWidth={s.muted ? 1 : 1.5}
                strokeOpacity={s.muted ? 0.55 : 1}
                strokeDasharray={s.dashed ? '3 3' : undefined}
                dot={s.muted ? false : breachDot(s.color)}
                activeDot={{ r: 3 }}
                connectNulls={false}
                isAnimationActive={false}
              />
            ))}
          </LineChart>
          {y.offScale.length > 0 && thresholds && (
            <div className="pointer-events-none absolute top-0 right-3 flex gap-2 text-[10px] font-semibold" data-testid="threshold-offscale">
              {y.offScale.map(({ name: k }) => (
                <span key={k} className={k === 'critical' ? 'text-danger' : 'text-warning'} title={`The ${k} line (${formatValue(thresholds[k], kind)}) is above this scale`}>
                  <span aria-hidden="true">↑ </span>
                  <span data-testid={`threshold-${k}`} data-value={thresholds[k]} data-placement="edge">
                    {k} {formatValue(thresholds[k], kind)}
                  </span>
                </span>
              ))}
            </div>
          )}
          {hovered && (
            <div
              className="absolute bottom-10 z-10 w-56 rounded-md border border-border bg-surface px-2.5 py-2 text-[12px] shadow-lg"
              style={{ left: `min(max(0px, ${hovered.x - 112}px), calc(100% - 14rem))` }}
              data-testid="chart-marker-tooltip"
            >
              <div className="mb-0.5 flex items-center justify-between gap-2 text-[11px] text-muted">
                <span className="font-semibold" style={{ color: MARKER_COLOR[hovered.marker.kind] }}>
                  {MARKER_NAME[hovered.marker.kind]}
                </span>
                <span className="font-mono">{formatTooltipTime(hovered.marker.t, 1).replace(/ · .*$/, '')}</span>
              </div>
              <div className="truncate text-fg" title={hovered.marker.label}>
                {hovered.marker.label}
              </div>
              {hovered.marker.by && <div className="truncate text-[11px] text-subtle">by {hovered.marker.by}</div>}
              <Link href={hovered.marker.href} className="mt-1 inline-block text-[12px] text-accent hover:underline" data-testid="chart-marker-link">
                Open →
              </Link>
            </div>
          )}
          </>
        )}
      </div>
      {!p.loading && hasData && (
        <div className="flex flex-wrap items-center gap-x-3 gap-y-1 px-3 pb-2 text-[11px] text-muted" data-testid="chart-legend">
          {p.legendNote ? (
            <span>{p.legendNote}</span>
          ) : (
            series.map((s) => (
              <span key={s.key} className="flex items-center gap-1">
                <span className="inline-block h-[3px] w-3 rounded" style={{ background: s.color, opacity: s.muted ? 0.6 : 1 }} />
                {s.name}
              </span>
            ))
          )}
        </div>
      )}
    </figure>
  );
}
