import { describe, it, expect } from 'vitest';
import { CoordinatorMetrics, Histogram } from './coordinator-metrics';

describe('CoordinatorMetrics', () => {
  it('declared families are exposed (HELP and TYPE, no samples) before anything is counted', () => {
    const m = new CoordinatorMetrics();
    m.declareCounter('sluice_executions_fenced_total', 'Fenced completions');
    m.declareHistogram('sluice_handler_duration_seconds', 'Handler run time');
    const text = m.render();
    expect(text).toContain('# HELP sluice_executions_fenced_total Fenced completions\n# TYPE sluice_executions_fenced_total counter\n');
    expect(text).toContain('# TYPE sluice_handler_duration_seconds histogram\n');
    expect(text).not.toMatch(/^sluice_/m);
  });

  it('a declared counter counts as usual once incremented, under one HELP/TYPE', () => {
    const m = new CoordinatorMetrics();
    m.declareCounter('sluice_x_total', 'x');
    m.inc('sluice_x_total', { task: 'a' }, 2);
    m.inc('sluice_x_total', { task: 'a' });
    const text = m.render();
    expect(text.match(/# TYPE sluice_x_total counter/g)).toHaveLength(1);
    expect(text).toContain('sluice_x_total{task="a"} 3');
  });

  it('a kept histogram handle is the series observe() writes: one series, cumulative buckets', () => {
    const m = new CoordinatorMetrics();
    const h = m.histogram('sluice_handler_duration_seconds', { task: 'a' }, 'Handler run time');
    h.observe(0.001); // on a bound: that bucket (le="0.001")
    m.observe('sluice_handler_duration_seconds', { task: 'a' }, 0.003);
    expect(m.histogram('sluice_handler_duration_seconds', { task: 'a' })).toBe(h);
    const text = m.render();
    expect(text).toContain('sluice_handler_duration_seconds_bucket{task="a",le="0.0005"} 0');
    expect(text).toContain('sluice_handler_duration_seconds_bucket{task="a",le="0.001"} 1');
    expect(text).toContain('sluice_handler_duration_seconds_bucket{task="a",le="0.005"} 2');
    expect(text).toContain('sluice_handler_duration_seconds_count{task="a"} 2');
  });
});

describe('Histogram', () => {
  it.each([
    { v: 0, bucket: 0 },
    { v: 1, bucket: 0 },
    { v: 1.5, bucket: 1 },
    { v: 2, bucket: 1 },
    { v: 5, bucket: 2 },
    { v: 6, bucket: 3 },
    { v: Number.NaN, bucket: 3 },
  ])('$v goes to bucket $bucket of bounds 1, 2, 5 (+Inf last)', ({ v, bucket }) => {
    const h = new Histogram([1, 2, 5]);
    h.observe(v);
    expect(h.counts.indexOf(1)).toBe(bucket);
  });
});
