import { describe, expect, it } from 'vitest';
import { HELD_MS, vacuumPlan, type ServerVacuumSettings, type TableVacuumStats } from './vacuum-policy';

const OFF: ServerVacuumSettings = { autovacuum: false, threshold: 50, scaleFactor: 0.2, analyzeThreshold: 50, analyzeScaleFactor: 0.1, naptimeMs: 60_000 };
const NOW = Date.parse('2026-11-25T04:00:00Z');
const ON: ServerVacuumSettings = { ...OFF, autovacuum: true };
// the executions table's reloptions as the retention migration sets them
const EXEC_OPTS = ['autovacuum_vacuum_scale_factor=0.02', 'autovacuum_vacuum_threshold=5000', 'autovacuum_vacuum_cost_delay=0'];

const t = (table: string, live: number, dead: number, reloptions: string[] | null = null, o: Partial<TableVacuumStats> = {}): TableVacuumStats => ({
  table, live, dead, reloptions, modSinceAnalyze: 0, lastVacuumAt: null, ...o,
});

describe('vacuumPlan: only where autovacuum will not, past the table threshold', () => {
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
    expect(vacuumPlan([table], server, NOW).todo.map((c) => c.table)).toEqual(vacuumed ? [table.table] : []);
  });

  it('analyzes too only past the analyze threshold (50 + 0.1 × live changes, the table\'s own first)', () => {
    const got = (mods: number, opts: string[] | null = null) => vacuumPlan([t('g', 1_000, 500, opts, { modSinceAnalyze: mods })], OFF, NOW).todo[0]!.analyze;
    expect(got(150)).toBe(false);
    expect(got(151)).toBe(true);
    expect(got(151, ['autovacuum_analyze_scale_factor=0.5'])).toBe(false);
    expect(got(551, ['autovacuum_analyze_scale_factor=0.5'])).toBe(true);
  });

  it('most dead tuples first, with the limit and the reason', () => {
    const got = vacuumPlan([t('a', 0, 300), t('executions', 7_701, 27_289, EXEC_OPTS, { modSinceAnalyze: 30_000 }), t('b', 0, 900), t('c', 0, 10)], OFF, NOW).todo;
    expect(got).toEqual([
      { table: 'executions', dead: 27_289, live: 7_701, limit: 5_154, reason: 'autovacuum off', analyze: true },
      { table: 'b', dead: 900, live: 0, limit: 50, reason: 'autovacuum off', analyze: false },
      { table: 'a', dead: 300, live: 0, limit: 50, reason: 'autovacuum off', analyze: false },
    ]);
    expect(vacuumPlan([t('x', 0, 300, ['autovacuum_enabled=false'])], ON, NOW).todo[0]!.reason).toBe('autovacuum_enabled = false');
  });
});

describe('vacuumPlan: the xmin horizon', () => {
  // executions at bench:soak's hold: 200,000 live, threshold 5,000 + 0.02 × 200,000 = 9,000
  const held = (o: Partial<TableVacuumStats>) => t('executions', 200_000, 500_000, EXEC_OPTS, o);
  it.each([
    // [what, table, horizon now, vacuumed?, held?]
    ['no record of its own: the threshold and the naptime alone', held({ lastVacuumAt: NOW - 61_000 }), 1_000, true, false],
    ['the horizon has not moved since its last vacuum: held, however many dead tuples', held({ lastVacuumAt: NOW - 300_000, own: { horizon: 1_000, leftDead: 450_000, heldMs: 60_000 } }), 1_000, false, true],
    ['… nor when the reading is older than the record', held({ lastVacuumAt: NOW - 300_000, own: { horizon: 1_000, leftDead: 450_000, heldMs: 60_000 } }), 999, false, true],
    ['the horizon moved and its last vacuum left 450,000 (> 9,000): at once, within the naptime', held({ lastVacuumAt: NOW - 5_000, own: { horizon: 1_000, leftDead: 450_000, heldMs: 60_000 } }), 1_001, true, false],
    ['the horizon moved, its last vacuum left 9,000 (not over the threshold): the naptime holds', held({ lastVacuumAt: NOW - 5_000, own: { horizon: 1_000, leftDead: 9_000, heldMs: 60_000 } }), 5_000, false, false],
    ['… and past the naptime it is vacuumed', held({ lastVacuumAt: NOW - 60_000, own: { horizon: 1_000, leftDead: 9_000, heldMs: 60_000 } }), 5_000, true, false],
    ['horizon unknown: the naptime holds whatever the record says', held({ lastVacuumAt: NOW - 5_000, own: { horizon: 1_000, leftDead: 450_000, heldMs: 60_000 } }), undefined, false, false],
    // a hot table leaves dead tuples behind without a long snapshot (cleanup locks it could
    // not take, versions a short transaction still saw): group_slots in an 8-minute soak
    ['its last vacuum left 1,213 (> the threshold) under a snapshot open 40 ms: the naptime holds', t('group_slots', 1_000, 3_000, null, { lastVacuumAt: NOW - 5_000, own: { horizon: 1_000, leftDead: 1_213, heldMs: 40 } }), 1_001, false, false],
    ['… and the horizon unmoved under a short snapshot is not a hold: past the naptime it is vacuumed', t('group_slots', 1_000, 3_000, null, { lastVacuumAt: NOW - 60_000, own: { horizon: 1_000, leftDead: 1_213, heldMs: 40 } }), 1_000, true, false],
    [`a snapshot open just under HELD_MS (${HELD_MS} ms) is not a hold either`, held({ lastVacuumAt: NOW - 5_000, own: { horizon: 1_000, leftDead: 450_000, heldMs: HELD_MS - 1 } }), 1_001, false, false],
    ['under its threshold: neither vacuumed nor reported held', t('executions', 200_000, 9_000, EXEC_OPTS, { own: { horizon: 1_000, leftDead: 0, heldMs: 60_000 } }), 1_000, false, false],
  ] as const)('%s', (_what, table, horizon, vacuumed, isHeld) => {
    const plan = vacuumPlan([table], OFF, NOW, horizon);
    expect(plan.todo.map((c) => c.table)).toEqual(vacuumed ? [table.table] : []);
    expect(plan.held).toEqual(isHeld ? [{ table: table.table, dead: table.dead }] : []);
  });

  it('where autovacuum runs, nothing is held or vacuumed by Sluice', () => {
    expect(vacuumPlan([held({ own: { horizon: 1_000, leftDead: 450_000, heldMs: 60_000 } })], ON, NOW, 1_000)).toEqual({ todo: [], held: [] });
  });
});
