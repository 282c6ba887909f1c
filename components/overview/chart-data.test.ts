import { describe, it, expect } from 'vitest';
import { depthChartData, metricChartData, throughputChartData, TOP_PARTITIONS } from './chart-data';
import type { ChartPoint } from '@/server/presenters/task-metrics';

const point = (t: number, depth: (number | null)[], extra: Partial<ChartPoint> = {}): ChartPoint => ({
  t,
  depth,
  depthTotal: null,
  imbalance: null,
  retryRate: null,
  dlqRate: null,
  p99LatencyMs: null,
  throughput: null,
  arrivalRate: null,
  ...extra,
});

describe('depthChartData', () => {
  it('one line per partition for a few partitions, gaps kept', () => {
    const d = depthChartData({ partitions: 3, points: [point(0, [1, 2, null]), point(10, [4, 5, 6])] });
    expect(d.series.map((s) => s.key)).toEqual(['p0', 'p1', 'p2']);
    expect(d.rows).toEqual([
      { t: 0, p0: 1, p1: 2, p2: null },
      { t: 10, p0: 4, p1: 5, p2: 6 },
    ]);
    expect(d.legendNote).toBeUndefined();
  });

  it('64 partitions: the deepest by peak get lines, the rest one max line', () => {
    const depths = (k: number) => Array.from({ length: 64 }, (_, i) => (i % 10 === 3 ? 1000 + i + k : i));
    const d = depthChartData({ partitions: 64, points: [point(0, depths(0)), point(10, depths(5))] });
    expect(d.series).toHaveLength(TOP_PARTITIONS + 1);
    expect(d.series.slice(0, TOP_PARTITIONS).map((s) => s.key)).toEqual(['p13', 'p23', 'p33', 'p43', 'p53', 'p63', 'p3', 'p62'].sort((a, b) => Number(a.slice(1)) - Number(b.slice(1))));
    // partition 3 is the smallest of the heavy ones (1003), still among the top 8 (7 heavy + p62 = 62).
    expect(d.rows[1]!.others).toBe(61);
    expect(d.legendNote).toMatch(/64 partitions/);
  });
});

describe('metric and throughput rows', () => {
  it('picks the metric', () => {
    const d = metricChartData([point(0, [], { retryRate: 0.2 })], 'retryRate', 'retry rate');
    expect(d.rows).toEqual([{ t: 0, retryRate: 0.2 }]);
  });
  it('finished and arrivals', () => {
    expect(throughputChartData([point(0, [], { throughput: 3, arrivalRate: 4 })]).rows).toEqual([{ t: 0, finished: 3, arrivals: 4 }]);
  });
});
