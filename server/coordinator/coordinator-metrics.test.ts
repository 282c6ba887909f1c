import { describe, it, expect } from 'vitest';
import { CoordinatorMetrics } from './coordinator-metrics';

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
});
