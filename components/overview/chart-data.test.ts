import { describe, it, expect } from 'vitest';
import { deferredChartData, depthChartData, metricChartData, rateHeldChartData, throughputChartData } from './chart-data';
import { reduceDepthSeries, TOP_PARTITIONS, type ChartPoint } from '@/server/presenters/task-metrics';

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
  shedRate: null,
  rejectedRate: null,
  throttledRate: null,
  spilledRate: null,
  rejectRate: null,
  waitP99Ms: null,
  runP99Ms: null,
  rateHeld: null,
  ...extra,
});

describe('depth series', () => {
  it('one line per partition for a few partitions, gaps kept', () => {
    const points = [point(0, [1, 2, null]), point(10, [4, 5, 6])];
    const r = reduceDepthSeries(points, 3);
    expect(r.points).toBe(points);
    const d = depthChartData({ partitions: 3, points: r.points, depthSeries: r.series });
    expect(d.series.map((s) => s.key)).toEqual(['p0', 'p1', 'p2']);
    expect(d.rows).toEqual([
      { t: 0, p0: 1, p1: 2, p2: null },
      { t: 10, p0: 4, p1: 5, p2: 6 },
    ]);
    expect(d.legendNote).toBeUndefined();
  });

  it('64 partitions: the deepest by peak get lines, the rest one max line', () => {
    const depths = (k: number) => Array.from({ length: 64 }, (_, i) => (i % 10 === 3 ? 1000 + i + k : i));
    const r = reduceDepthSeries([point(0, depths(0)), point(10, depths(5))], 64);
    // Heavy partitions 3, 13, …, 63 (7 of them) and the next deepest, 62.
    expect(r.series.map((s) => s.partition)).toEqual([3, 13, 23, 33, 43, 53, 62, 63, null]);
    expect(r.series).toHaveLength(TOP_PARTITIONS + 1);
    expect(r.points[1]!.depth).toEqual([1008, 1018, 1028, 1038, 1048, 1058, 62, 1068, 61]);
    const d = depthChartData({ partitions: 64, points: r.points, depthSeries: r.series });
    expect(d.rows[1]).toMatchObject({ p3: 1008, p62: 62, others: 61 });
    expect(d.series.at(-1)).toMatchObject({ key: 'others', muted: true });
    expect(d.legendNote).toMatch(/64 partitions: the 8 deepest drawn one by one, the other 56/);
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

describe('backpressure charts', () => {
  it('throttled, spilled and rejected per second, gaps kept', () => {
    const d = deferredChartData([point(0, [], { throttledRate: 2, spilledRate: 0.5, rejectedRate: 1 }), point(10, [])]);
    expect(d.rows).toEqual([
      { t: 0, throttled: 2, spilled: 0.5, rejected: 1 },
      { t: 10, throttled: null, spilled: null, rejected: null },
    ]);
    expect(d.series.map((s) => s.key)).toEqual(['throttled', 'spilled', 'rejected']);
  });
  it('shed per second as its own thresholded series', () => {
    expect(metricChartData([point(0, [], { shedRate: 3 })], 'shedRate', 'shed /s').rows).toEqual([{ t: 0, shedRate: 3 }]);
  });
});

describe('rate-held chart', () => {
  it('held executions against the whole depth (muted, not the card\'s value), gaps kept', () => {
    const d = rateHeldChartData([point(0, [], { rateHeld: 7, depthTotal: 10 }), point(10, []), point(20, [], { rateHeld: 0, depthTotal: 3 })]);
    expect(d.rows).toEqual([
      { t: 0, held: 7, depth: 10 },
      { t: 10, held: null, depth: null },
      { t: 20, held: 0, depth: 3 },
    ]);
    expect(d.series.map((s) => [s.key, s.muted ?? false])).toEqual([
      ['held', false],
      ['depth', true],
    ]);
  });
});
