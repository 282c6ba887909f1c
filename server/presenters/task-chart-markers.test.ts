// The guarded-rollout markers (issue 20) as the chart draws them: label and link.
import { describe, it, expect } from 'vitest';
import { toTaskChartMarker } from './task-metrics';

const at = new Date('2026-11-24T12:00:00Z');

describe('toTaskChartMarker: guarded rollouts', () => {
  it.each([
    [{ kind: 'guarded', ref: '12', actor: 'ann@x', message: 'globex 1', count: null }, 'v12 applied with guard · globex 1', '/config/history?before=13'],
    [{ kind: 'promoted', ref: '12', actor: 'system', message: 'bake of 10m passed without any critical alert', count: null }, 'v12 promoted · bake of 10m passed without any critical alert', '/config/history?before=13'],
    [{ kind: 'rolled-back', ref: '12', actor: 'system', message: 'critical alert depth fired on mail', count: 14 }, 'v12 rolled back by guard (v14) · critical alert depth fired on mail', '/config/history?before=15'],
    [{ kind: 'rolled-back', ref: '12', actor: 'bob@x', message: 'aborted by an operator', count: 14 }, 'v12 rolled back (v14) · aborted by an operator', '/config/history?before=15'],
  ] as const)('%j', (row, label, href) => {
    expect(toTaskChartMarker('mail', { ...row, at })).toEqual({ t: at.getTime(), kind: row.kind, by: row.actor, label, href });
  });
});
