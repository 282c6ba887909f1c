import { describe, expect, it } from 'vitest';
import { advance, closedBreaker, fromStored, probeTimeout, record, recordCounts, reset, slots, started, toStored, windowCounts, type Breaker, type BreakerSettings, type Outcome } from './circuit-breaker';

const S: BreakerSettings = { windowMs: 1000, failureRate: 0.5, minCalls: 4, coolDownMs: 500, probes: 2 };

/** Feeds outcomes at the given times and returns every state reached and transition. */
function run(steps: [number, Outcome][], b: Breaker = closedBreaker()) {
  const states: string[] = [];
  const transitions: string[] = [];
  for (const [at, o] of steps) {
    const r = record(advance(b, at, S).breaker, o, at, S);
    b = r.breaker;
    states.push(b.state);
    if (r.transition) transitions.push(`${r.transition.from}→${r.transition.to}@${r.transition.at}`);
  }
  return { b, states, transitions };
}

describe('closed → open: failure rate over the window', () => {
  it.each<{ name: string; steps: [number, Outcome][]; last: string; transitions: string[] }>([
    { name: 'below minCalls never trips, even all failing', steps: [[0, 'failure'], [1, 'failure'], [2, 'failure']], last: 'closed', transitions: [] },
    { name: 'at minCalls and the rate: trips', steps: [[0, 'success'], [1, 'failure'], [2, 'success'], [3, 'failure']], last: 'open', transitions: ['closed→open@3'] },
    { name: 'just under the rate: stays closed', steps: [[0, 'success'], [1, 'success'], [2, 'failure'], [3, 'success'], [4, 'failure']], last: 'closed', transitions: [] },
    { name: 'timeouts count as failures', steps: [[0, 'timeout'], [1, 'timeout'], [2, 'success'], [3, 'timeout']], last: 'open', transitions: ['closed→open@3'] },
    {
      name: 'failures older than the window no longer count',
      steps: [[0, 'failure'], [1, 'failure'], [2, 'failure'], [1500, 'success'], [1501, 'failure'], [1502, 'success']],
      last: 'closed',
      transitions: [],
    },
    {
      name: 'an outcome exactly windowMs old has left the window',
      steps: [[0, 'failure'], [1000, 'failure'], [1001, 'failure'], [1002, 'success']],
      last: 'closed',
      transitions: [],
    },
  ])('$name', ({ steps, last, transitions }) => {
    const r = run(steps);
    expect(r.b.state).toBe(last);
    expect(r.transitions).toEqual(transitions);
  });

  it('says why it tripped', () => {
    const r = run([[0, 'failure'], [1, 'failure'], [2, 'success'], [3, 'failure']]);
    expect(r.b).toEqual({ state: 'open', openedAt: 3, reason: '3 of 4 executions failed in 1000 ms (threshold 50%)' });
  });
});

describe('open → half-open → closed / open', () => {
  const tripped: Breaker = { state: 'open', openedAt: 100, reason: 'x' };

  it.each([
    { at: 100, state: 'open', slots: 0 },
    { at: 599, state: 'open', slots: 0 },
    { at: 600, state: 'half-open', slots: 2 },
    { at: 5000, state: 'half-open', slots: 2 },
  ])('at $at: $state, $slots slots', ({ at, state, slots: n }) => {
    const b = advance(tripped, at, S).breaker;
    expect(b.state).toBe(state);
    expect(slots(b, S)).toBe(n);
  });

  it('closed lets everything through', () => expect(slots(closedBreaker(), S)).toBe(Number.POSITIVE_INFINITY));

  it('ignores outcomes while open (late finishes of executions claimed before the trip)', () => {
    expect(record(tripped, 'success', 200, S)).toEqual({ breaker: tripped });
    expect(record(tripped, 'failure', 200, S)).toEqual({ breaker: tripped });
  });

  const half = (): Breaker => started(advance(tripped, 600, S).breaker, 2);

  it('only `probes` executions start in half-open', () => {
    const b = advance(tripped, 600, S).breaker;
    expect(slots(started(b, 1), S)).toBe(1);
    expect(slots(half(), S)).toBe(0);
    expect(slots(started(half(), 5), S)).toBe(0);
  });

  it.each<{ name: string; outcomes: Outcome[]; state: string; transition?: string }>([
    { name: 'every probe succeeds: closed', outcomes: ['success', 'success'], state: 'closed', transition: 'half-open→closed' },
    { name: 'one success of two: still half-open', outcomes: ['success'], state: 'half-open' },
    { name: 'a probe fails: open again', outcomes: ['failure'], state: 'open', transition: 'half-open→open' },
    { name: 'a probe times out after a success: open again', outcomes: ['success', 'timeout'], state: 'open', transition: 'half-open→open' },
  ])('$name', ({ outcomes, state, transition }) => {
    let b = half();
    let last: string | undefined;
    outcomes.forEach((o, i) => {
      const r = record(b, o, 700 + i, S);
      b = r.breaker;
      if (r.transition) last = `${r.transition.from}→${r.transition.to}`;
    });
    expect(b.state).toBe(state);
    expect(last).toBe(transition);
  });

  it('re-opened from half-open starts a fresh cool-down and says why', () => {
    const r = record(record(half(), 'success', 700, S).breaker, 'failure', 710, S);
    expect(r.breaker).toEqual({ state: 'open', openedAt: 710, reason: 'probe failed (1 of 2 succeeded)' });
    expect(advance(r.breaker, 1209, S).breaker.state).toBe('open');
    expect(advance(r.breaker, 1210, S).breaker.state).toBe('half-open');
  });

  it('closes with an empty window: old failures do not re-trip it', () => {
    const closed = record(record(half(), 'success', 700, S).breaker, 'success', 701, S).breaker;
    expect(closed).toEqual(closedBreaker());
    expect(run([[702, 'failure'], [703, 'failure'], [704, 'failure']], closed).b.state).toBe('closed');
  });
});

describe('reset', () => {
  it.each<[string, Breaker, string | undefined]>([
    ['open', { state: 'open', openedAt: 0, reason: 'x' }, 'open→closed'],
    ['half-open', { state: 'half-open', since: 0, started: 1, succeeded: 0 }, 'half-open→closed'],
    ['closed with failures', { state: 'closed', window: [{ at: 0, ok: 0, failed: 1 }] }, undefined],
  ])('from %s: closed and empty', (_n, b, transition) => {
    const r = reset(b, 50, 'ops@example.com');
    expect(r.breaker).toEqual(closedBreaker());
    expect(r.transition && `${r.transition.from}→${r.transition.to}`).toBe(transition);
    if (r.transition) expect(r.transition.reason).toBe('reset by ops@example.com');
  });
});

describe('recordCounts: a coordinator reports a batch', () => {
  const S2: BreakerSettings = { windowMs: 6000, failureRate: 0.5, minCalls: 10, coolDownMs: 500, probes: 3 };

  it.each<{ name: string; batches: [number, number, number][]; state: string; reason?: string }>([
    { name: 'one batch reaching minCalls at the rate trips', batches: [[0, 5, 5]], state: 'open', reason: '5 of 10 executions failed in 6000 ms (threshold 50%)' },
    { name: 'batches add up within the window', batches: [[0, 3, 1], [1000, 2, 4]], state: 'open', reason: '5 of 10 executions failed in 6000 ms (threshold 50%)' },
    { name: 'a batch that left the window no longer counts', batches: [[0, 0, 9], [6000, 9, 1]], state: 'closed' },
    { name: 'merged into one bucket (100 ms) and expiring with its first outcome', batches: [[0, 0, 5], [50, 0, 4], [6000, 1, 0], [6001, 0, 1]], state: 'closed' },
    { name: 'an empty batch changes nothing', batches: [[0, 0, 0]], state: 'closed' },
  ])('$name', ({ batches, state, reason }) => {
    let b = closedBreaker();
    for (const [at, ok, failed] of batches) b = recordCounts(b, { ok, failed }, at, S2).breaker;
    expect(b.state).toBe(state);
    if (reason) expect(b).toMatchObject({ reason });
  });

  it('keeps the stored window small: at most one entry per bucket', () => {
    let b = closedBreaker();
    for (let t = 0; t < 6000; t += 7) b = recordCounts(b, { ok: 3, failed: 0 }, t, S2).breaker;
    expect(b.state === 'closed' && b.window.length).toBeLessThanOrEqual(61);
    expect(windowCounts(b, 5999, S2)).toEqual({ failed: 0, total: 3 * Math.ceil(6000 / 7) });
  });

  it.each<{ name: string; ok: number; failed: number; state: string; reason?: string }>([
    { name: 'half-open: enough successes in one batch close it', ok: 3, failed: 0, state: 'closed' },
    { name: 'half-open: any failure in the batch re-opens it', ok: 2, failed: 1, state: 'open', reason: 'probe failed (2 of 3 succeeded)' },
    { name: 'half-open: fewer successes than probes keep it half-open', ok: 2, failed: 0, state: 'half-open' },
  ])('$name', ({ ok, failed, state, reason }) => {
    const half: Breaker = { state: 'half-open', since: 0, started: 3, succeeded: 0 };
    const r = recordCounts(half, { ok, failed }, 10, S2);
    expect(r.breaker.state).toBe(state);
    if (reason) expect(r.breaker).toMatchObject({ reason });
  });
});

describe('half-open probes that give no outcome (released, canceled, coordinator died)', () => {
  const s = { windowMs: 60_000, failureRate: 0.5, minCalls: 4, coolDownMs: 1000, probes: 2, probeTimeoutMs: 5000 };
  const half = (started: number, succeeded: number, probedAt?: number): Breaker => ({ state: 'half-open', since: 0, started, succeeded, ...(probedAt !== undefined ? { probedAt } : {}) });
  const cases: { name: string; b: Breaker; now: number; settings?: typeof s | Omit<typeof s, 'probeTimeoutMs'>; slots: number; reason?: string }[] = [
    { name: 'in flight, inside the timeout: no slot', b: half(2, 0, 1000), now: 5999, slots: 0 },
    { name: 'silent past the timeout: both let through again', b: half(2, 0, 1000), now: 6000, slots: 2, reason: '2 probes gave no outcome within 5000 ms; let through again' },
    { name: 'one succeeded, one silent: one again', b: half(2, 1, 1000), now: 9000, slots: 1, reason: '1 probe gave no outcome within 5000 ms; let through again' },
    { name: 'no timeout configured: stays taken', b: half(2, 0, 1000), now: 1e9, settings: { windowMs: 60_000, failureRate: 0.5, minCalls: 4, coolDownMs: 1000, probes: 2 }, slots: 0 },
    { name: 'none let through yet: nothing to expire', b: half(0, 0), now: 1e9, slots: 2 },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const a = advance(c.b, c.now, c.settings ?? s);
      expect(slots(a.breaker, c.settings ?? s)).toBe(c.slots);
      expect(a.transition?.reason).toBe(c.reason);
      if (a.transition) expect(a.transition).toMatchObject({ from: 'half-open', to: 'half-open' });
    });
  }

  it('the episode keeps its start when lost probes are let through again; probedAt moves with each admission', () => {
    const prev = { state: 'half-open' as const, sinceMs: 100, reason: 'cool-down of 1000 ms passed', window: [], openedAtMs: 0, probesStarted: 2, probesSucceeded: 0, probesAtMs: 200 };
    const a = advance(fromStored(prev), 6000, s);
    const b = started(a.breaker, 2, 6000);
    expect(toStored(prev, b, [a.transition])).toMatchObject({ state: 'half-open', sinceMs: 100, probesStarted: 2, probesAtMs: 6000, tripped: false });
  });

  it('probeTimeout: handler timeout + lease grace + two report intervals', () => {
    expect(probeTimeout(30_000, 5000, 500)).toBe(36_000);
  });
});
