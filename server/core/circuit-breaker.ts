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
// Outcomes arrive one by one (`record`) or as counts (`recordCounts`: a coordinator's
// finishes of the last flush interval, server/services/circuit-breaker.ts). The closed
// window keeps one entry per `windowMs / WINDOW_BUCKETS` bucket (counts merged), so the
// state stored in Postgres stays small however many executions finish; an entry expires
// `windowMs` after the first outcome it holds (so at most one bucket early).
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
  /**
   * A probe with no outcome this long after it was let through is lost (released by a
   * shutdown or a cancel, or its coordinator died): its slot is let through again. Absent:
   * never (the state machine alone cannot know how long a probe may run).
   */
  probeTimeoutMs?: number;
}

export const DEFAULT_BREAKER: BreakerSettings = { windowMs: 60_000, failureRate: 0.5, minCalls: 20, coolDownMs: 30_000, probes: 3 };

export type Outcome = 'success' | 'failure' | 'timeout';

/** Outcomes counted from `at` (the first of them) until the next bucket. */
export interface WindowEntry {
  at: number;
  ok: number;
  failed: number;
}

/** The closed window holds at most this many entries (plus one). */
export const WINDOW_BUCKETS = 60;

export type Breaker =
  | { state: 'closed'; /** outcomes in the window, oldest first, merged per bucket */ window: WindowEntry[] }
  | { state: 'open'; openedAt: number; reason: string }
  | { state: 'half-open'; since: number; started: number; succeeded: number; /** when probes were last let through */ probedAt?: number };

export interface Transition {
  from: Breaker['state'];
  to: Breaker['state'];
  at: number;
  reason: string;
}

export const closedBreaker = (): Breaker => ({ state: 'closed', window: [] });

/**
 * Open → half-open once the cool-down has passed. Half-open with probes out that gave no
 * outcome for `probeTimeoutMs` since the last were let through: those slots are let
 * through again (a half-open → half-open transition, so the history says why), else a
 * probe released without an outcome would hold the breaker half-open for good. Any other
 * state unchanged.
 */
export function advance(b: Breaker, now: number, s: BreakerSettings): { breaker: Breaker; transition?: Transition } {
  if (b.state === 'open' && now - b.openedAt >= s.coolDownMs) {
    return {
      breaker: { state: 'half-open', since: now, started: 0, succeeded: 0 },
      transition: { from: 'open', to: 'half-open', at: now, reason: `cool-down of ${s.coolDownMs} ms passed` },
    };
  }
  if (b.state === 'half-open' && s.probeTimeoutMs !== undefined && b.probedAt !== undefined && b.started > b.succeeded && now - b.probedAt >= s.probeTimeoutMs) {
    const lost = b.started - b.succeeded;
    return {
      breaker: { state: 'half-open', since: b.since, started: b.succeeded, succeeded: b.succeeded },
      transition: { from: 'half-open', to: 'half-open', at: now, reason: `${lost} probe${lost === 1 ? '' : 's'} gave no outcome within ${s.probeTimeoutMs} ms; let through again` },
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

/** `n` executions started (claimed) at `now`; in half-open they are probes. */
export function started(b: Breaker, n: number, now?: number): Breaker {
  if (b.state !== 'half-open' || n <= 0) return b;
  return { ...b, started: b.started + n, ...(now !== undefined ? { probedAt: now } : {}) };
}

const open = (from: Breaker['state'], now: number, reason: string): { breaker: Breaker; transition: Transition } => ({
  breaker: { state: 'open', openedAt: now, reason },
  transition: { from, to: 'open', at: now, reason },
});

/** An execution finished with `outcome` at `now`. */
export function record(b: Breaker, outcome: Outcome, now: number, s: BreakerSettings): { breaker: Breaker; transition?: Transition } {
  const failed = outcome !== 'success';
  return recordCounts(b, { ok: failed ? 0 : 1, failed: failed ? 1 : 0, timedOut: outcome === 'timeout' }, now, s);
}

export interface OutcomeCounts {
  ok: number;
  /** failures, timeouts included */
  failed: number;
  /** some of the failures were timeouts (only changes the wording of a half-open re-trip) */
  timedOut?: boolean;
}

/** `ok` + `failed` executions finished by `now` (a batch, counted in one step). In
 *  half-open any failure re-opens it, whatever succeeded in the same batch. */
export function recordCounts(b: Breaker, c: OutcomeCounts, now: number, s: BreakerSettings): { breaker: Breaker; transition?: Transition } {
  if (c.ok + c.failed === 0 || b.state === 'open') return { breaker: b };
  if (b.state === 'half-open') {
    if (c.failed > 0) {
      const succeeded = b.succeeded + c.ok;
      return open('half-open', now, `probe ${c.timedOut && c.failed === 1 ? 'timed out' : 'failed'} (${Math.min(succeeded, s.probes)} of ${s.probes} succeeded)`);
    }
    const succeeded = b.succeeded + c.ok;
    if (succeeded >= s.probes) {
      return { breaker: closedBreaker(), transition: { from: 'half-open', to: 'closed', at: now, reason: `${succeeded} probes succeeded` } };
    }
    return { breaker: { ...b, succeeded } };
  }
  const bucketMs = Math.max(1, Math.floor(s.windowMs / WINDOW_BUCKETS));
  const window = b.window.filter((o) => now - o.at < s.windowMs).map((o) => ({ ...o }));
  const last = window[window.length - 1];
  if (last && Math.floor(last.at / bucketMs) === Math.floor(now / bucketMs)) {
    last.ok += c.ok;
    last.failed += c.failed;
  } else {
    window.push({ at: now, ok: c.ok, failed: c.failed });
  }
  const failures = window.reduce((a, o) => a + o.failed, 0);
  const total = failures + window.reduce((a, o) => a + o.ok, 0);
  if (total >= s.minCalls && failures / total >= s.failureRate) {
    return open('closed', now, `${failures} of ${total} executions failed in ${s.windowMs} ms (threshold ${Math.round(s.failureRate * 100)}%)`);
  }
  return { breaker: { state: 'closed', window } };
}

/** Failures and total outcomes in the closed window as of `now` (the console's gauge). */
export function windowCounts(b: Breaker, now: number, s: BreakerSettings): { failed: number; total: number } {
  if (b.state !== 'closed') return { failed: 0, total: 0 };
  const live = b.window.filter((o) => now - o.at < s.windowMs);
  const failed = live.reduce((a, o) => a + o.failed, 0);
  return { failed, total: failed + live.reduce((a, o) => a + o.ok, 0) };
}

/** An operator's reset: closed, window empty. */
export function reset(b: Breaker, now: number, actor: string): { breaker: Breaker; transition?: Transition } {
  if (b.state === 'closed') return { breaker: closedBreaker() };
  return { breaker: closedBreaker(), transition: { from: b.state, to: 'closed', at: now, reason: `reset by ${actor}` } };
}

// ─── As stored (task_breakers; server/db/task-breakers.ts) ─────────────────────────

/** The breaker as its row keeps it; times in ms on the database's clock. */
export interface StoredBreaker {
  state: Breaker['state'];
  /** When the current state began. */
  sinceMs: number;
  /** Why it is in it. */
  reason: string;
  window: WindowEntry[];
  openedAtMs: number | null;
  probesStarted: number;
  probesSucceeded: number;
  /** When probes were last let through (half-open). */
  probesAtMs: number | null;
}

export function fromStored(row: StoredBreaker): Breaker {
  switch (row.state) {
    case 'open':
      return { state: 'open', openedAt: row.openedAtMs ?? row.sinceMs, reason: row.reason };
    case 'half-open':
      return {
        state: 'half-open',
        since: row.sinceMs,
        started: row.probesStarted,
        succeeded: row.probesSucceeded,
        ...(row.probesAtMs !== null && row.probesAtMs !== undefined ? { probedAt: row.probesAtMs } : {}),
      };
    default:
      return { state: 'closed', window: Array.isArray(row.window) ? row.window : [] };
  }
}

/** The row after `b`, reached through `transitions` (oldest first; none = same state). */
export function toStored(prev: StoredBreaker, b: Breaker, transitions: readonly (Transition | undefined)[]): StoredBreaker & { tripped: boolean } {
  const ts = transitions.filter((x): x is Transition => x !== undefined);
  const t = ts[ts.length - 1];
  // A half-open → half-open step (lost probes let through again) keeps the episode's start.
  const changed = [...ts].reverse().find((x) => x.from !== x.to);
  return {
    state: b.state,
    sinceMs: changed ? changed.at : prev.sinceMs,
    reason: t ? t.reason : prev.reason,
    window: b.state === 'closed' ? b.window : [],
    openedAtMs: b.state === 'open' ? b.openedAt : b.state === 'half-open' ? prev.openedAtMs : null,
    probesStarted: b.state === 'half-open' ? b.started : 0,
    probesSucceeded: b.state === 'half-open' ? b.succeeded : 0,
    probesAtMs: b.state === 'half-open' ? (b.probedAt ?? null) : null,
    tripped: ts.some((x) => x.to === 'open'),
  };
}

/** The state machine's settings out of a task definition's circuitBreaker block. */
export function breakerSettings(s: BreakerSettings, probeTimeoutMs?: number): BreakerSettings {
  return {
    windowMs: s.windowMs,
    failureRate: s.failureRate,
    minCalls: s.minCalls,
    coolDownMs: s.coolDownMs,
    probes: s.probes,
    ...(probeTimeoutMs !== undefined ? { probeTimeoutMs } : {}),
  };
}

/** How long a probe may give no outcome before its slot is let through again: it ran
 *  out its handler timeout, its lease grace (a dead coordinator's lease expires) and the
 *  coordinator's outcome report interval, twice over for the report. */
export function probeTimeout(taskTimeoutMs: number, leaseGraceMs: number, reportMs: number): number {
  return taskTimeoutMs + leaseGraceMs + 2 * reportMs;
}
