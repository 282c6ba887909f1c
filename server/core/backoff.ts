// Retry delays. `attempt` is the 1-based attempt that just failed.
//   fixed        d = baseDelayMs
//   exponential  d = baseDelayMs · 2^(attempt-1)
// then d = min(d, maxDelayMs), then jitter j ∈ [0, 1] randomises that fraction of it:
//   delay = d·(1 − j) + d·j·rand()        (j = 0: exact, j = 1: "full jitter" in [0, d))
// rounded to whole milliseconds and clamped into [0, maxDelayMs].
// Pure: no I/O imports (server/core rule).
import type { TaskDefinition } from './task-definition';

export type RetryPolicy = TaskDefinition['retry'];

function checkAttempt(attempt: number): void {
  if (!Number.isInteger(attempt) || attempt < 1) throw new RangeError(`attempt must be an integer ≥ 1, got ${attempt}`);
}

/** The delay before the cap and jitter are applied, already capped at maxDelayMs. */
export function baseRetryDelayMs(retry: RetryPolicy, attempt: number): number {
  checkAttempt(attempt);
  const base = Math.max(0, retry.baseDelayMs);
  const max = Math.max(0, retry.maxDelayMs);
  // 2^(attempt-1) overflows to Infinity for huge attempts; min() then yields the cap.
  const d = retry.backoff === 'fixed' ? base : base * 2 ** (attempt - 1);
  return Math.min(Number.isFinite(d) ? d : max, max);
}

export function retryDelayMs(retry: RetryPolicy, attempt: number, rand: () => number): number {
  const d = baseRetryDelayMs(retry, attempt);
  const j = Math.min(1, Math.max(0, retry.jitter));
  let delay = d;
  if (j > 0) {
    const r = rand();
    const u = Number.isFinite(r) ? Math.min(1, Math.max(0, r)) : 0;
    delay = d * (1 - j) + d * j * u;
  }
  return Math.min(Math.max(0, retry.maxDelayMs), Math.max(0, Math.round(delay)));
}

/** After attempt `attempt` failed: is there another one? (attempts are 1-based) */
export function shouldRetry(attempt: number, maxAttempts: number): boolean {
  checkAttempt(attempt);
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) {
    throw new RangeError(`maxAttempts must be an integer ≥ 1, got ${maxAttempts}`);
  }
  return attempt < maxAttempts;
}

export type FailureOutcome = { kind: 'retry'; runAt: number; delayMs: number } | { kind: 'dead' };

/** What happens to an execution whose attempt `attempt` failed at `now` (ms epoch). */
export function decideFailure(retry: RetryPolicy, attempt: number, now: number, rand: () => number): FailureOutcome {
  if (!shouldRetry(attempt, retry.maxAttempts)) return { kind: 'dead' };
  const delayMs = retryDelayMs(retry, attempt, rand);
  return { kind: 'retry', runAt: now + delayMs, delayMs };
}
