'use client';
// The six charts of one task (Overview and the task drill-down), each against the
// task's own thresholds: depth per partition, imbalance, retry rate, DLQ rate, p99
// latency, and throughput (finished vs arrivals, which has no threshold).
import type { ChartPoint, TaskCharts } from '@/server/presenters/task-metrics';
import { ThresholdChart } from '@/components/charts/threshold-chart';
import { depthChartData, metricChartData, throughputChartData } from './chart-data';
import { fitTimeDomain } from '@/server/core/chart-scale';

/** The first bucket with any value: the charts of one task share one axis fitted to it. */
function firstPointWithData(points: ChartPoint[]): number | null {
  for (const p of points) {
    if (p.depth.some((d) => d !== null) || p.imbalance !== null || p.retryRate !== null || p.dlqRate !== null || p.p99LatencyMs !== null || p.throughput !== null || p.arrivalRate !== null) return p.t;
  }
  return null;
}

const bucketNote = (s: number) => (s >= 60 ? `${s / 60} min buckets` : `${s} s buckets`);

export function TaskChartsGrid({ charts, loading }: { charts: TaskCharts; loading?: boolean }) {
  const x = fitTimeDomain(charts.from, charts.to, firstPointWithData(charts.points), charts.resolutionS * 1000);
  const common = { from: x.from, fitX: false, to: charts.to, resolutionS: charts.resolutionS, loading, emptyText: 'No samples for this task in this range', markers: charts.markers };
  const t = charts.thresholds;
  const depth = depthChartData(charts);
  const imbalance = metricChartData(charts.points, 'imbalance', 'max ÷ mean depth');
  const retry = metricChartData(charts.points, 'retryRate', 'retried ÷ attempts');
  const dlq = metricChartData(charts.points, 'dlqRate', 'dead ÷ finished');
  const p99 = metricChartData(charts.points, 'p99LatencyMs', 'p99 enqueue → finish');
  const tput = throughputChartData(charts.points);
  const fitted = charts.requestedRange !== undefined && charts.range !== charts.requestedRange;
  return (
    <>
    {fitted && (
      <p className="text-[12px] text-muted" data-testid="charts-range-fitted">
        This task&apos;s data is younger than {charts.requestedRange}: drawing the last {charts.range} in {bucketNote(charts.resolutionS)} instead.
      </p>
    )}
    <div className="grid grid-cols-1 gap-3 lg:grid-cols-2" data-testid="task-charts" data-task={charts.task} data-range={charts.range} data-requested-range={charts.requestedRange} data-resolution={charts.resolutionS}>
      <ThresholdChart id="depth" title="Depth per partition" subtitle={`queued + scheduled + blocked · max per bucket · ${bucketNote(charts.resolutionS)}`} kind="count" thresholds={t.depth} {...depth} {...common} />
      <ThresholdChart id="imbalance" title="Imbalance ratio" subtitle="deepest partition ÷ mean partition depth" kind="ratio" thresholds={t.imbalance} {...imbalance} {...common} />
      <ThresholdChart id="retry-rate" title="Retry rate" subtitle="retried attempts ÷ finished attempts" kind="percent" thresholds={t.retryRate} {...retry} {...common} />
      <ThresholdChart id="dlq-rate" title="DLQ rate" subtitle="dead-lettered ÷ finished executions" kind="percent" thresholds={t.dlqRate} {...dlq} {...common} />
      <ThresholdChart id="p99" title="p99 latency" subtitle="enqueue → finish, highest sample p99 in the bucket" kind="ms" thresholds={t.p99LatencyMs} {...p99} {...common} />
      <ThresholdChart id="throughput" title="Throughput" subtitle="executions finished and arriving per second" kind="rate" thresholds={null} {...tput} {...common} />
    </div>
    </>
  );
}
