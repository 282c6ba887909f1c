import { describe, expect, it } from 'vitest';
import { vacuumCandidates, type ServerVacuumSettings, type TableVacuumStats } from './vacuum-policy';

const OFF: ServerVacuumSettings = { autovacuum: false, threshold: 50, scaleFactor: 0.2, analyzeThreshold: 50, analyzeScaleFactor: 0.1, naptimeMs: 60_000 };
const NOW = Date.parse('2026-11-25T04:00:00Z');
const ON: ServerVacuumSettings = { ...OFF, autovacuum: true };
// the executions table's reloptions as the retention migration sets them
const EXEC_OPTS = ['autovacuum_vacuum_scale_factor=0.02', 'autovacuum_vacuum_threshold=5000', 'autovacuum_vacuum_cost_delay=0'];

const t = (table: string, live: number, dead: number, reloptions: string[] | null = null, o: Partial<TableVacuumStats> = {}): TableVacuumStats => ({
  table, live, dead, reloptions, modSinceAnalyze: 0, lastVacuumAt: null, ...o,
});

describe('vacuumCandidates: only where autovacuum will not, past the table threshold', () => {
  it.each([
    // [what, server, table, vacuumed?]
    ['autovacuum on: never, however many dead tuples', ON, t('executions', 7_701, 27_289, EXEC_OPTS), false],
    ['off, executions at the demo (27,289 dead > 5,000 + 0.02 × 7,701 = 5,154)', OFF, t('executions', 7_701, 27_289, EXEC_OPTS), true],
    ['off, executions just under its own threshold (5,154)', OFF, t('executions', 7_701, 5_154, EXEC_OPTS), false],
    ['off, executions just over it', OFF, t('executions', 7_701, 5_155, EXEC_OPTS), true],
    ['off, a table without reloptions uses the server settings (50 + 0.2 × 1,000 = 250)', OFF, t('group_slots', 1_000, 251), true],
    ['off, … and under them', OFF, t('group_slots', 1_000, 250), false],
    ['on, but the table has autovacuum_enabled = false', ON, t('task_runtime', 10, 400, ['autovacuum_enabled=false']), true],
    ['on, autovacuum_enabled = off spelled another way', ON, t('task_runtime', 10, 400, ['autovacuum_enabled=off']), true],
    ['on, autovacuum_enabled = true', ON, t('task_runtime', 10, 400, ['autovacuum_enabled=true']), false],
    ['off, an unreadable reloption falls back to the server value', OFF, t('rate_state', 0, 51, ['autovacuum_vacuum_threshold=x']), true],
    ['off, nothing dead', OFF, t('alerts', 0, 0), false],
    ['off, past its threshold but vacuumed 59 s ago (naptime 60 s)', OFF, t('task_runtime', 10, 400, null, { lastVacuumAt: NOW - 59_000 }), false],
    ['off, past its threshold and vacuumed 60 s ago', OFF, t('task_runtime', 10, 400, null, { lastVacuumAt: NOW - 60_000 }), true],
  ] as const)('%s', (_what, server, table, vacuumed) => {
    expect(vacuumCandidates([table], server, NOW).map((c) => c.table)).toEqual(vacuumed ? [table.table] : []);
  });

  it('analyzes too only past the analyze threshold (50 + 0.1 × live changes, the table\'s own first)', () => {
    const got = (mods: number, opts: string[] | null = null) => vacuumCandidates([t('g', 1_000, 500, opts, { modSinceAnalyze: mods })], OFF, NOW)[0]!.analyze;
    expect(got(150)).toBe(false);
    expect(got(151)).toBe(true);
    expect(got(151, ['autovacuum_analyze_scale_factor=0.5'])).toBe(false);
    expect(got(551, ['autovacuum_analyze_scale_factor=0.5'])).toBe(true);
  });

  it('most dead tuples first, with the limit and the reason', () => {
    const got = vacuumCandidates([t('a', 0, 300), t('executions', 7_701, 27_289, EXEC_OPTS, { modSinceAnalyze: 30_000 }), t('b', 0, 900), t('c', 0, 10)], OFF, NOW);
    expect(got).toEqual([
      { table: 'executions', dead: 27_289, live: 7_701, limit: 5_154, reason: 'autovacuum off', analyze: true },
      { table: 'b', dead: 900, live: 0, limit: 50, reason: 'autovacuum off', analyze: false },
      { table: 'a', dead: 300, live: 0, limit: 50, reason: 'autovacuum off', analyze: false },
    ]);
    expect(vacuumCandidates([t('x', 0, 300, ['autovacuum_enabled=false'])], ON, NOW)[0]!.reason).toBe('autovacuum_enabled = false');
  });
});
