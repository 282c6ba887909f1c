// What a coordinator writes for one attempt once its handler has returned: the finish
// item the completer batches into sluice_finish / sluice_cycle. Pure (server/core rule):
// the caller passes the clock and the random source.
//   handler succeeded                      → succeeded (even if an abort came too late)
//   aborted by the coordinator's shutdown  → release (handed back, the attempt not counted)
//   aborted by an operator's cancel        → canceled
//   failed or timed out                    → retry at now + backoff, or dead when the task's
//                                            retry policy has no attempt left (core/backoff)
// A failure carries its error text (8,000 chars), stack (16,000) and fingerprint.
import { decideFailure, type RetryPolicy } from './backoff';
import { errorFingerprint, type ErrorLike } from './fingerprint';

/** The shape of db/finish-executions' FinishItem (core imports no db code). */
export interface AttemptFinish {
  id: number;
  leaseToken: string;
  outcome: 'succeeded' | 'retry' | 'dead' | 'release' | 'canceled';
  runAt?: Date;
  error?: string;
  stack?: string;
  fingerprint?: string;
}

/** Who aborted the handler's signal, if anyone did: the coordinator shutting down, an
 *  operator's cancel, or something else (the timeout). */
export type AbortedBy = 'shutdown' | 'cancel' | null;

/** What the handler run came to (coordinator/handler-runner's RunResult fits). */
export type AttemptResult = { ok: true } | { ok: false; error: ErrorLike & { name: string } };

export const MAX_ERROR_CHARS = 8000;
export const MAX_STACK_CHARS = 16_000;

export function decideAttemptFinish(
  attempt: { id: number; leaseToken: string; attempts: number },
  result: AttemptResult,
  abortedBy: AbortedBy,
  retry: RetryPolicy,
  now: number,
  rand: () => number,
): AttemptFinish {
  if (result.ok) return { id: attempt.id, leaseToken: attempt.leaseToken, outcome: 'succeeded' };
  if (abortedBy === 'shutdown') return { id: attempt.id, leaseToken: attempt.leaseToken, outcome: 'release' };
  if (abortedBy === 'cancel') return { id: attempt.id, leaseToken: attempt.leaseToken, outcome: 'canceled' };
  const error = result.error;
  const d = decideFailure(retry, Math.max(1, attempt.attempts), now, rand);
  return {
    id: attempt.id,
    leaseToken: attempt.leaseToken,
    outcome: d.kind,
    ...(d.kind === 'retry' ? { runAt: new Date(d.runAt) } : {}),
    error: `${error.name}: ${error.message}`.slice(0, MAX_ERROR_CHARS),
    ...(error.stack ? { stack: error.stack.slice(0, MAX_STACK_CHARS) } : {}),
    fingerprint: errorFingerprint(error),
  };
}
