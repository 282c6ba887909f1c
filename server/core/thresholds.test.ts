import { describe, expect, it } from 'vitest';
import { taskDefinitionSchema } from './task-definition';
import { evaluateTaskHealth, evaluateThreshold, worstStatus, type TaskHealthSnapshot, type ThresholdStatus } from './thresholds';

const defaults = taskDefinitionSchema.parse({ name: 't' }).thresholds;

describe('evaluateThreshold (breach is strictly greater)', () => {
  const depth = { warning: 1000, critical: 5000 };
  it.each<{ value: number | null; t: { warning: number; critical: number }; expected: ThresholdStatus }>([
    { value: null, t: depth, expected: 'unknown' },
    { value: Number.NaN, t: depth, expected: 'unknown' },
    { value: 0, t: depth, expected: 'ok' },
    { value: 999, t: depth, expected: 'ok' },
    { value: 1000, t: depth, expected: 'ok' },
    { value: 1000.0001, t: depth, expected: 'warning' },
    { value: 1001, t: depth, expected: 'warning' },
    { value: 5000, t: depth, expected: 'warning' },
    { value: 5001, t: depth, expected: 'critical' },
    { value: Number.POSITIVE_INFINITY, t: depth, expected: 'critical' },
    { value: 0.1, t: { warning: 0.1, critical: 0.25 }, expected: 'ok' },
    { value: 0.11, t: { warning: 0.1, critical: 0.25 }, expected: 'warning' },
    { value: 0.26, t: { warning: 0.1, critical: 0.25 }, expected: 'critical' },
    { value: 0, t: { warning: 0, critical: 1 }, expected: 'ok' },
    { value: 0.001, t: { warning: 0, critical: 1 }, expected: 'warning' },
  ])('$value against $t → $expected', ({ value, t, expected }) => {
    expect(evaluateThreshold(value, t)).toBe(expected);
  });
});

describe('worstStatus', () => {
  it.each<{ statuses: ThresholdStatus[]; expected: ThresholdStatus }>([
    { statuses: [], expected: 'unknown' },
    { statuses: ['unknown', 'unknown'], expected: 'unknown' },
    { statuses: ['ok', 'unknown'], expected: 'ok' },
    { statuses: ['ok', 'warning', 'unknown'], expected: 'warning' },
    { statuses: ['critical', 'warning', 'ok'], expected: 'critical' },
  ])('$statuses → $expected', ({ statuses, expected }) => {
    expect(worstStatus(statuses)).toBe(expected);
  });
});

describe('evaluateTaskHealth', () => {
  const healthy: TaskHealthSnapshot = { maxDepth: 10, imbalance: 1.2, retryRate: 0.02, dlqRate: 0, p99LatencyMs: 800 };
  it.each<{ name: string; snapshot: TaskHealthSnapshot; worst: ThresholdStatus; breaches: string[] }>([
    { name: 'healthy', snapshot: healthy, worst: 'ok', breaches: [] },
    { name: 'no data at all', snapshot: { maxDepth: null, imbalance: null, retryRate: null, dlqRate: null, p99LatencyMs: null }, worst: 'unknown', breaches: [] },
    { name: 'idle task: depth known, rates unknown', snapshot: { maxDepth: 0, imbalance: 1, retryRate: null, dlqRate: null, p99LatencyMs: null }, worst: 'ok', breaches: [] },
    { name: 'all exactly at warning', snapshot: { maxDepth: 1000, imbalance: 2, retryRate: 0.1, dlqRate: 0.01, p99LatencyMs: 5000 }, worst: 'ok', breaches: [] },
    { name: 'deep partition', snapshot: { ...healthy, maxDepth: 1001 }, worst: 'warning', breaches: ['depth'] },
    { name: 'DLQ critical, p99 warning', snapshot: { ...healthy, dlqRate: 0.06, p99LatencyMs: 6000 }, worst: 'critical', breaches: ['dlqRate', 'p99LatencyMs'] },
    { name: 'critical sorts before warning', snapshot: { ...healthy, maxDepth: 2000, imbalance: 9 }, worst: 'critical', breaches: ['imbalance', 'depth'] },
    { name: 'retry rate critical', snapshot: { ...healthy, retryRate: 0.3 }, worst: 'critical', breaches: ['retryRate'] },
  ])('$name → $worst', ({ snapshot, worst, breaches }) => {
    const h = evaluateTaskHealth(defaults, snapshot);
    expect(h.worst).toBe(worst);
    expect(h.breaches).toEqual(breaches);
  });

  it('reports each metric with its value, status and lines', () => {
    const h = evaluateTaskHealth(defaults, { ...healthy, maxDepth: 6000, retryRate: null });
    expect(h.metrics.depth).toEqual({ value: 6000, status: 'critical', warning: 1000, critical: 5000 });
    expect(h.metrics.retryRate).toEqual({ value: null, status: 'unknown', warning: 0.1, critical: 0.25 });
    expect(h.metrics.p99LatencyMs).toEqual({ value: 800, status: 'ok', warning: 5000, critical: 30_000 });
  });

  it('uses the task\'s own thresholds', () => {
    const strict = { ...defaults, depth: { warning: 5, critical: 10 } };
    expect(evaluateTaskHealth(strict, healthy).metrics.depth.status).toBe('warning');
  });
});
