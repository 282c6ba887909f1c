import { describe, it, expect } from 'vitest';
import {
  ALERT_RULES,
  alertKey,
  alertTiming,
  checkPolicy,
  compareAlertsForList,
  DEFAULT_ALERT_POLICY,
  detectorSeverity,
  effectiveThreshold,
  escalate,
  isThresholdRule,
  relaxedHotKey,
  relaxedHotPartition,
  severityAtLeast,
  thresholdBreach,
  type AlertRule,
} from './alert-evaluation';
import { stepAlert, type AlertRuleTiming, type AlertState } from './alert-rules';

const depth = { warning: 1000, critical: 5000 };

describe('thresholdBreach', () => {
  it.each([
    // value, open, breaching, severity
    [null, false, false, 'warning'],
    [NaN, true, false, 'warning'],
    [999, false, false, 'warning'],
    [1000, false, false, 'warning'], // strictly greater
    [1001, false, true, 'warning'],
    [5000, false, true, 'warning'],
    [5001, false, true, 'critical'],
    // open alert: the line is 10% lower (900)
    [950, true, true, 'warning'],
    [901, true, true, 'warning'],
    [900, true, false, 'warning'],
    [950, false, false, 'warning'],
  ] as const)('value %s open=%s → breaching %s (%s)', (value, open, breaching, severity) => {
    expect(thresholdBreach(value, depth, open, 0.1)).toEqual({ breaching, severity });
  });
});

describe('effectiveThreshold', () => {
  it.each([
    [100, false, 0.1, 100],
    [100, true, 0.1, 90],
    [100, true, 0, 100],
  ])('%i open=%s h=%s → %i', (t, open, h, want) => expect(effectiveThreshold(t, open, h)).toBeCloseTo(want));
});

describe('flap suppression: hysteresis + for/clear durations', () => {
  // A value oscillating around the warning line every 10 s for 10 minutes. Without
  // hysteresis it would fire and resolve repeatedly; with it, at most one episode.
  function run(values: number[], hysteresis: number) {
    let state: AlertState | undefined;
    const events: string[] = [];
    values.forEach((v, i) => {
      const open = state?.status === 'firing' || state?.status === 'acknowledged';
      const obs = thresholdBreach(v, depth, open, hysteresis);
      const r = stepAlert(state, { breaching: obs.breaching, value: v, at: i * 10_000 }, { forMs: 30_000, clearForMs: 30_000 });
      state = r.state;
      events.push(...r.events.map((e) => e.type));
    });
    return events;
  }
  // First a sustained breach (fires), then wobble between 950 and 1050.
  const sustained = Array.from({ length: 6 }, () => 1200);
  const wobble = Array.from({ length: 60 }, (_, i) => (i % 2 === 0 ? 950 : 1050));

  it('with hysteresis, wobbling just under the line keeps one firing episode', () => {
    expect(run([...sustained, ...wobble], 0.1)).toEqual(['fired']);
  });

  it('clear-duration alone also holds while the wobble is faster than clearForMs', () => {
    expect(run([...sustained, ...wobble], 0)).toEqual(['fired']);
  });

  it('a slow oscillation (40 s below, 40 s above) flaps without hysteresis, not with it', () => {
    const slow = Array.from({ length: 48 }, (_, i) => (Math.floor(i / 4) % 2 === 0 ? 950 : 1050));
    const flappy = run([...sustained, ...slow], 0);
    expect(flappy.filter((e) => e === 'fired').length).toBeGreaterThan(1);
    expect(run([...sustained, ...slow], 0.1)).toEqual(['fired']);
  });

  it('a real recovery still resolves', () => {
    expect(run([...sustained, ...Array.from({ length: 6 }, () => 100)], 0.1)).toEqual(['fired', 'resolved']);
  });
});

describe('detector helpers', () => {
  it('relaxes hot-partition and hot-key sensitivity while open', () => {
    expect(relaxedHotPartition({ factor: 3, floorDepth: 100 }, 0.1)).toEqual({ factor: 2.7, floorDepth: 90 });
    expect(relaxedHotPartition({ factor: 1.05, floorDepth: 0 }, 0.5).factor).toBe(1);
    const k = relaxedHotKey({ dominantShare: 0.5, floor: 50 }, 0.1);
    expect(k.dominantShare).toBeCloseTo(0.45);
    expect(k.floor).toBeCloseTo(45);
  });
  it.each([
    [null, 10, 'critical'],
    [3, 10, 'warning'],
    [10, 10, 'critical'],
  ] as const)('detectorSeverity(%s, %i) = %s', (ratio, at, want) => expect(detectorSeverity(ratio, at)).toBe(want));
});

describe('severity', () => {
  it.each([
    [undefined, 'warning', 'warning'],
    ['warning', 'critical', 'critical'],
    ['critical', 'warning', 'critical'],
  ] as const)('escalate(%s, %s) = %s', (cur, obs, want) => expect(escalate(cur, obs)).toBe(want));
  it.each([
    ['warning', 'warning', true],
    ['warning', 'critical', false],
    ['critical', 'warning', true],
  ] as const)('severityAtLeast(%s, %s) = %s', (s, min, want) => expect(severityAtLeast(s, min)).toBe(want));
});

describe('compareAlertsForList: critical first, then the newest fired', () => {
  it('orders a mixed list', () => {
    const a = (id: number, severity: 'warning' | 'critical', firedAt: number) => ({ id, severity, firedAt: new Date(firedAt) });
    const list = [a(1, 'warning', 500), a(2, 'critical', 100), a(3, 'warning', 900), a(4, 'critical', 700), a(5, 'critical', 700)];
    expect([...list].sort(compareAlertsForList).map((x) => x.id)).toEqual([5, 4, 2, 3, 1]);
  });
});

describe('alertKey and policy', () => {
  it('builds a dedup key per task, rule and subject', () => {
    expect(alertKey('emails', 'hotPartition', '3')).toBe('emails|hotPartition|3');
    expect(alertKey('emails', 'depth')).toBe('emails|depth|');
  });
  it('accepts the default policy and rejects nonsense', () => {
    expect(checkPolicy(DEFAULT_ALERT_POLICY)).toBe(DEFAULT_ALERT_POLICY);
    expect(() => checkPolicy({ ...DEFAULT_ALERT_POLICY, hysteresis: 1 })).toThrow(/hysteresis/);
    expect(() => checkPolicy({ ...DEFAULT_ALERT_POLICY, forMs: -1 })).toThrow(/forMs/);
    expect(() => checkPolicy({ ...DEFAULT_ALERT_POLICY, hotKey: { dominantShare: 0, floor: 1 } })).toThrow(/dominantShare/);
    expect(() => checkPolicy({ ...DEFAULT_ALERT_POLICY, hotPartition: { factor: 0.5, floorDepth: 1 } })).toThrow(/factor/);
  });
});

describe("alertTiming: a task's alertAfterMs replaces the policy's forMs", () => {
  const policy = { forMs: 60_000, clearForMs: 120_000 };
  it.each<[string, { alertAfterMs?: number } | undefined, AlertRuleTiming]>([
    ['no thresholds (task gone)', undefined, { forMs: 60_000, clearForMs: 120_000 }],
    ['alertAfterMs absent', {}, { forMs: 60_000, clearForMs: 120_000 }],
    ['alertAfterMs 15 s', { alertAfterMs: 15_000 }, { forMs: 15_000, clearForMs: 120_000 }],
    ['alertAfterMs 0 (first breach)', { alertAfterMs: 0 }, { forMs: 0, clearForMs: 120_000 }],
    ['alertAfterMs longer than the default', { alertAfterMs: 300_000 }, { forMs: 300_000, clearForMs: 120_000 }],
  ])('%s', (_n, thresholds, want) => expect(alertTiming(policy, thresholds)).toEqual(want));

  // Evaluations every 15 s of a condition that starts breaching at t = 0: when it fires.
  it.each([
    [undefined, 60_000],
    [15_000, 15_000],
    [20_000, 30_000],
    [0, 0],
  ])('alertAfterMs %s → fires at the evaluation %i ms after the first breach', (alertAfterMs, firedAt) => {
    const timing = alertTiming(DEFAULT_ALERT_POLICY, alertAfterMs === undefined ? {} : { alertAfterMs });
    let state: AlertState | undefined;
    let fired: number | undefined;
    for (let at = 0; at <= 120_000 && fired === undefined; at += 15_000) {
      const r = stepAlert(state, { breaching: true, value: 10, at }, timing);
      state = r.state;
      fired = r.events.find((e) => e.type === 'fired')?.at;
    }
    expect(fired).toBe(firedAt);
  });
});

describe('isThresholdRule', () => {
  // Only the rules that read one of the task's own warning/critical lines.
  const taskLines = ['depth', 'imbalance', 'retryRate', 'dlqRate', 'p99LatencyMs'];
  it.each<[AlertRule, boolean]>(ALERT_RULES.map((r) => [r, taskLines.includes(r)]))('%s → %s', (rule, want) =>
    expect(isThresholdRule(rule)).toBe(want),
  );
});
