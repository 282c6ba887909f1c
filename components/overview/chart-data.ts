// Turns the metrics presenter's chart points into rows and series for ThresholdChart.
// Depth lines follow the presenter's depthSeries: one per partition, or (for many
// partitions) the deepest few plus the max of the others.
import type { ChartPoint, TaskCharts } from '@/server/presenters/task-metrics';
import { seriesColor } from '@/components/charts/chart-format';
import type { ChartRow, SeriesDef } from '@/components/charts/threshold-chart';

export interface ChartData {
  rows: ChartRow[];
  series: SeriesDef[];
  legendNote?: string;
}

export function depthChartData(c: Pick<TaskCharts, 'points' | 'partitions' | 'depthSeries'>): ChartData {
  const reduced = c.depthSeries.some((s) => s.partition === null);
  return {
    rows: c.points.map((p) => {
      const row: ChartRow = { t: p.t };
      c.depthSeries.forEach((s, i) => (row[s.key] = p.depth[i] ?? null));
      return row;
    }),
    series: c.depthSeries.map((s) =>
      s.partition === null
        ? { key: s.key, name: s.name, color: 'var(--subtle)', muted: true, dashed: true }
        : { key: s.key, name: s.name, color: seriesColor(s.partition) },
    ),
    ...(reduced
      ? { legendNote: `${c.partitions} partitions: the ${c.depthSeries.length - 1} deepest drawn one by one, the other ${c.partitions - c.depthSeries.length + 1} as their maximum` }
      : {}),
  };
}

type Metric = 'imbalance' | 'retryRate' | 'dlqRate' | 'p99LatencyMs' | 'shedRate' | 'rejectRate' | 'waitP99Ms' | 'runP99Ms';

export function metricChartData(points: ChartPoint[], metric: Metric, name: string): ChartData {
  return {
    rows: points.map((p) => ({ t: p.t, [metric]: p[metric] }) as ChartRow),
    series: [{ key: metric, name, color: 'var(--accent)' }],
  };
}

export function throughputChartData(points: ChartPoint[]): ChartData {
  return {
    rows: points.map((p) => ({ t: p.t, finished: p.throughput, arrivals: p.arrivalRate })),
    series: [
      { key: 'finished', name: 'finished /s', color: 'var(--accent)' },
      { key: 'arrivals', name: 'arrivals /s', color: seriesColor(1), dashed: true },
    ],
  };
}

/** Backpressure outcomes that are not dropped work: throttled (delayed) and spilled (parked) per second. */
export function deferredChartData(points: ChartPoint[]): ChartData {
  return {
    rows: points.map((p) => ({ t: p.t, throttled: p.throttledRate, spilled: p.spilledRate, rejected: p.rejectedRate })),
    series: [
      { key: 'throttled', name: 'throttled /s', color: 'var(--accent)' },
      { key: 'spilled', name: 'spilled /s', color: seriesColor(1), dashed: true },
      { key: 'rejected', name: 'rejected /s', color: seriesColor(2) },
    ],
  };
}

/**
 * Rate limits (issue #19): executions held by the task's rate limits (max per bucket) against
 * the task's whole depth (max per bucket, muted): how much of the backlog waits on a rate.
 */
export function rateHeldChartData(points: ChartPoint[]): ChartData {
  return {
    rows: points.map((p) => ({ t: p.t, held: p.rateHeld, depth: p.depthTotal })),
    series: [
      { key: 'held', name: 'held by a rate limit', color: 'var(--accent)' },
      { key: 'depth', name: 'depth (all partitions)', color: 'var(--subtle)', muted: true, dashed: true },
    ],
  };
}
