// A task's circuit breaker as a pure state machine (seed 000's hardening list: a
// processing target that keeps failing should not be hammered). No engine wiring here:
// the caller passes the time in and keeps the state.
//
//   closed    → open       the failure rate over the last `windowMs` reaches `failureRate`
//                          with at least `minCalls` outcomes in the window
//   open      → half-open  `coolDownMs` after it opened (advance / slots)
//   half-open → closed     `probes` probe executions succeeded
//   half-open → open       any probe failed (a fresh cool-down)
// Timeouts count as failures. Outcomes that arrive while open are ignored (nothing should
// run then; a late finish of an execution claimed before the trip says nothing new).
// Pure: no I/O imports (server/core rule).

export interface BreakerSettings {
  /** How far back outcomes count, ms. */
  windowMs: number;
  /** Trip at this failure fraction (0 < rate ≤ 1) … */
  failureRate: number;
  /** … once the window holds at least this many outcomes. */
  minCalls: number;
  /** How long it stays open before letting probes through, ms. */
  coolDownMs: number;
  /** Executions let through in half-open; all must succeed to close. */
  probes: number;
}

export const DEFAULT_BREAKER: BreakerSettings = { windowMs: 60_000, failureRate: 0.5, minCalls: 20, coolDownMs: 30_000, probes: 3 };

export type Outcome = 'success' | 'failure' | 'timeout';

export type Breaker =
  | { state: 'closed'; /** outcomes in the window, oldest first */ window: { at: number; failed: boolean }[] }
  | { state: 'open'; openedAt: number; reason: string }
  | { state: 'half-open'; since: number; started: number; succeeded: number };

export interface Transition {
  from: Breaker['state'];
  to: Breaker['state'];
  at: number;
  reason: string;
}

export const closedBreaker = (): Breaker => ({ state: 'closed', window: [] });

/** Open → half-open once the cool-down has passed; any other state unchanged. */
export function advance(b: Breaker, now: number, s: BreakerSettings): { breaker: Breaker; transition?: Transition } {
  if (b.state === 'open' && now - b.openedAt >= s.coolDownMs) {
    return {
      breaker: { state: 'half-open', since: now, started: 0, succeeded: 0 },
      transition: { from: 'open', to: 'half-open', at: now, reason: `cool-down of ${s.coolDownMs} ms passed` },
    };
  }
  return { breaker: b };
}

/** How many executions may start now: unlimited when closed, none when open, the probes
 *  not yet started when half-open. Call `advance` first. */
export function slots(b: Breaker, s: BreakerSettings): number {
  if (b.state === 'closed') return Number.POSITIVE_INFINITY;
  if (b.state === 'open') return 0;
  return Math.max(0, s.probes - b.started);
}

/** `n` executions started (claimed); in half-open they are probes. */
export function started(b: Breaker, n: number): Breaker {
  return b.state === 'half-open' ? { ...b, started: b.started + n } : b;
}

const open = (from: Breaker['state'], now: number, reason: string): { breaker: Breaker; transition: Transition } => ({
  breaker: { state: 'open', openedAt: now, reason },
  transition: { from, to: 'open', at: now, reason },
});

/** An execution finished with `outcome` at `now`. */
export function record(b: Breaker, outcome: Outcome, now: number, s: BreakerSettings): { breaker: Breaker; transition?: Transition } {
  const failed = outcome !== 'success';
  if (b.state === 'open') return { breaker: b };
  if (b.state === 'half-open') {
    if (failed) return open('half-open', now, `probe ${outcome === 'timeout' ? 'timed out' : 'failed'} (${b.succeeded} of ${s.probes} succeeded)`);
    const succeeded = b.succeeded + 1;
    if (succeeded >= s.probes) {
      return { breaker: closedBreaker(), transition: { from: 'half-open', to: 'closed', at: now, reason: `${succeeded} probes succeeded` } };
    }
    return { breaker: { ...b, succeeded } };
  }
  const window = [...b.window.filter((o) => now - o.at < s.windowMs), { at: now, failed }];
  const failures = window.filter((o) => o.failed).length;
  if (window.length >= s.minCalls && failures / window.length >= s.failureRate) {
    return open('closed', now, `${failures} of ${window.length} executions failed in ${s.windowMs} ms (threshold ${Math.round(s.failureRate * 100)}%)`);
  }
  return { breaker: { state: 'closed', window } };
}

/** An operator's reset: closed, window empty. */
export function reset(b: Breaker, now: number, actor: string): { breaker: Breaker; transition?: Transition } {
  if (b.state === 'closed') return { breaker: closedBreaker() };
  return { breaker: closedBreaker(), transition: { from: b.state, to: 'closed', at: now, reason: `reset by ${actor}` } };
}
