// Turns the metrics presenter's chart points into rows and series for ThresholdChart.
// Depth per partition draws one line per partition up to MAX_PARTITION_LINES; beyond
// that the deepest partitions (by peak in the range) get their own lines and the rest
// one "max of the others" line, so 64 partitions stay readable.
import type { ChartPoint, TaskCharts } from '@/server/presenters/task-metrics';
import { seriesColor } from '@/components/charts/chart-format';
import type { ChartRow, SeriesDef } from '@/components/charts/threshold-chart';

export const MAX_PARTITION_LINES = 16;
export const TOP_PARTITIONS = 8;

export interface ChartData {
  rows: ChartRow[];
  series: SeriesDef[];
  legendNote?: string;
}

export function depthChartData(c: Pick<TaskCharts, 'points' | 'partitions'>): ChartData {
  const n = c.partitions;
  if (n <= MAX_PARTITION_LINES) {
    return {
      rows: c.points.map((p) => {
        const row: ChartRow = { t: p.t };
        for (let i = 0; i < n; i++) row[`p${i}`] = p.depth[i] ?? null;
        return row;
      }),
      series: Array.from({ length: n }, (_, i) => ({ key: `p${i}`, name: `partition ${i}`, color: seriesColor(i) })),
    };
  }
  const peak = Array.from({ length: n }, (_, i) => Math.max(-1, ...c.points.map((p) => p.depth[i] ?? -1)));
  const top = [...peak.keys()].sort((a, b) => peak[b]! - peak[a]! || a - b).slice(0, TOP_PARTITIONS).sort((a, b) => a - b);
  const topSet = new Set(top);
  const rows = c.points.map((p) => {
    const row: ChartRow = { t: p.t };
    for (const i of top) row[`p${i}`] = p.depth[i] ?? null;
    const others = p.depth.filter((d, i): d is number => d !== null && !topSet.has(i));
    row.others = others.length ? Math.max(...others) : null;
    return row;
  });
  return {
    rows,
    series: [
      ...top.map((i) => ({ key: `p${i}`, name: `partition ${i}`, color: seriesColor(i) })),
      { key: 'others', name: `max of other ${n - top.length}`, color: 'var(--subtle)', muted: true, dashed: true },
    ],
    legendNote: `${n} partitions: the ${top.length} deepest drawn one by one, the other ${n - top.length} as their maximum`,
  };
}

type Metric = 'imbalance' | 'retryRate' | 'dlqRate' | 'p99LatencyMs';

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
