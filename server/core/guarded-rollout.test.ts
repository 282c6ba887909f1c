import { describe, it, expect } from 'vitest';
import {
  bakeDurationProblem,
  DEFAULT_GUARD_RULE,
  formatBake,
  guardExemptions,
  guardOptionsSchema,
  matchesGuardRule,
  parseBakeDuration,
  stepGuard,
  type GuardAlertEvent,
  type GuardState,
} from './guarded-rollout';

const T0 = 1_700_000_000_000;
const baking: GuardState = { status: 'baking', tasks: ['mail'], rule: DEFAULT_GUARD_RULE, startedAt: T0, bakeUntil: T0 + 600_000 };
const ev = (o: Partial<GuardAlertEvent>): GuardAlertEvent => ({
  alertId: 1,
  task: 'mail',
  rule: 'depth',
  subject: '',
  severity: 'critical',
  type: 'fired',
  at: T0 + 60_000,
  value: 9000,
  threshold: 5000,
  summary: 'mail depth',
  ...o,
});
const tick = (now: number, alerts: GuardAlertEvent[] = [], editedSince: string[] = []) => ({ type: 'tick' as const, now, alerts, editedSince });

describe('stepGuard', () => {
  it.each<[string, GuardState, Parameters<typeof stepGuard>[1], string, string]>([
    ['nothing fired, bake not over', baking, tick(T0 + 300_000), 'baking', 'none'],
    ['nothing fired, bake over', baking, tick(T0 + 600_000), 'promoted', 'none'],
    ['critical of the task fired during the bake', baking, tick(T0 + 75_000, [ev({})]), 'rolled_back', 'rollback'],
    ['a warning does not trip the default rule', baking, tick(T0 + 75_000, [ev({ severity: 'warning' })]), 'baking', 'none'],
    ['another task’s critical does not trip it', baking, tick(T0 + 75_000, [ev({ task: 'bill' })]), 'baking', 'none'],
    ['an event before the apply does not count', baking, tick(T0 + 75_000, [ev({ at: T0 - 1 })]), 'baking', 'none'],
    ['an event after the bake does not count; the bake passed', baking, tick(T0 + 700_000, [ev({ at: T0 + 600_001 })]), 'promoted', 'none'],
    ['an event inside the bake seen by a late tick still rolls back', baking, tick(T0 + 700_000, [ev({ at: T0 + 599_000 })]), 'rolled_back', 'rollback'],
    ['an escalation to critical counts', baking, tick(T0 + 75_000, [ev({ type: 'escalated' })]), 'rolled_back', 'rollback'],
    ['edited again since: stands down', baking, tick(T0 + 75_000, [], ['mail']), 'superseded', 'none'],
    ['a breach wins over a later edit', baking, tick(T0 + 75_000, [ev({})], ['mail']), 'rolled_back', 'rollback'],
    ['promote early', baking, { type: 'promote', now: T0 + 1000 }, 'promoted', 'none'],
    ['abort rolls back now', baking, { type: 'abort', now: T0 + 1000 }, 'aborted', 'rollback'],
  ])('%s', (_name, s, input, status, action) => {
    const d = stepGuard(s, input);
    expect(d.status).toBe(status);
    expect(d.action).toBe(action);
  });

  it('rolls back on the earliest matching event, with it as evidence and a reason naming rule and values', () => {
    const d = stepGuard(baking, tick(T0 + 120_000, [ev({ alertId: 7, at: T0 + 90_000 }), ev({ alertId: 5, at: T0 + 60_000, rule: 'p99LatencyMs', value: 40_000, threshold: 30_000 })]));
    expect(d).toMatchObject({ status: 'rolled_back', evidence: { alertId: 5, rule: 'p99LatencyMs' } });
    if (d.action !== 'rollback') throw new Error('expected rollback');
    expect(d.reason).toContain('p99LatencyMs');
    expect(d.reason).toContain('value 40000, threshold 30000');
  });

  it('refuses to step a guard that is no longer baking', () => {
    expect(() => stepGuard({ ...baking, status: 'promoted' }, tick(T0))).toThrow(/promoted/);
  });
});

describe('matchesGuardRule', () => {
  it.each<[string, { severity: 'warning' | 'critical'; rule: string | null }, Partial<GuardAlertEvent>, boolean]>([
    ['any critical: critical depth', { severity: 'critical', rule: null }, {}, true],
    ['any critical: warning depth', { severity: 'critical', rule: null }, { severity: 'warning' }, false],
    ['warning or above: warning', { severity: 'warning', rule: null }, { severity: 'warning' }, true],
    ['p99 only: depth', { severity: 'warning', rule: 'p99LatencyMs' }, {}, false],
    ['p99 only: p99 critical', { severity: 'warning', rule: 'p99LatencyMs' }, { rule: 'p99LatencyMs' }, true],
  ])('%s', (_n, rule, e, want) => expect(matchesGuardRule(rule, ['mail'], ev(e))).toBe(want));
});

describe('a change that moves partitions: its own unowned-partitions alert', () => {
  const moved = guardExemptions({ tasks: [{ name: 'mail', partitions: 4 }, { name: 'bill', partitions: 2 }] }, { tasks: [{ name: 'mail', partitions: 8 }, { name: 'bill', partitions: 2 }] }, ['mail', 'bill']);
  const unowned = (o: Partial<GuardAlertEvent> = {}) => ev({ rule: 'unownedPartitions', ...o });

  it('exempts only the tasks whose partition count changes', () => {
    expect(moved).toEqual([{ task: 'mail', rule: 'unownedPartitions', why: 'the change moves partitions (4 → 8)' }]);
    expect(guardExemptions({ tasks: [{ name: 'mail', partitions: 4 }] }, { tasks: [{ name: 'mail', partitions: 4 }] }, ['mail'])).toEqual([]);
  });

  it.each<[string, { severity: 'warning' | 'critical'; rule: string | null }, GuardAlertEvent, string]>([
    ['the default rule does not count it (critical: none owned)', DEFAULT_GUARD_RULE, unowned(), 'baking'],
    ['nor warning-or-critical', { severity: 'warning', rule: null }, unowned({ severity: 'warning' }), 'baking'],
    ['another rule of the same task still counts', DEFAULT_GUARD_RULE, ev({}), 'rolled_back'],
    ['a task whose partitions did not move: counted', DEFAULT_GUARD_RULE, unowned({ task: 'bill' }), 'rolled_back'],
    ['named as the rule: counted', { severity: 'warning', rule: 'unownedPartitions' }, unowned({ severity: 'warning' }), 'rolled_back'],
  ])('%s', (_n, rule, e, status) => {
    const s: GuardState = { ...baking, tasks: ['mail', 'bill'], rule, exempt: moved };
    expect(stepGuard(s, tick(T0 + 75_000, [e])).status).toBe(status);
  });
});

describe('bake durations', () => {
  it.each<[string, number | null]>([
    ['10m', 600_000],
    ['90s', 90_000],
    ['1h30m', 5_400_000],
    [' 2M ', 120_000],
    ['', null],
    ['10', null],
    ['ten minutes', null],
    ['-5m', null],
    ['1.5h', null],
  ])('parse %j → %s', (t, ms) => expect(parseBakeDuration(t)).toBe(ms));

  it('CLI bounds name the flag', () => {
    expect(bakeDurationProblem('10m')).toEqual({ ms: 600_000 });
    expect(bakeDurationProblem('5s')).toEqual({ problem: '--guard must be at least 30s, got "5s"' });
    expect(bakeDurationProblem('25h')).toEqual({ problem: '--guard must be at most 24h, got "25h"' });
    expect(bakeDurationProblem('soon')).toMatchObject({ problem: expect.stringContaining('such as 10m') });
  });

  it('formats', () => {
    expect([formatBake(600_000), formatBake(90_000), formatBake(5_400_000), formatBake(0)]).toEqual(['10m', '1m30s', '1h30m', '0s']);
  });

  it('options default to 10 minutes and any critical, and name bad fields', () => {
    expect(guardOptionsSchema.parse({})).toEqual({ bakeMs: 600_000, rule: { severity: 'critical', rule: null } });
    const r = guardOptionsSchema.safeParse({ bakeMs: 5, rule: { severity: 'fatal' } });
    expect(r.success).toBe(false);
    expect(r.error!.issues.map((i) => i.path.join('.')).sort()).toEqual(['bakeMs', 'rule.severity']);
  });
});
