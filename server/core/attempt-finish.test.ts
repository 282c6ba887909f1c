import { describe, expect, it } from 'vitest';
import { decideAttemptFinish, MAX_ERROR_CHARS, MAX_STACK_CHARS, type AbortedBy, type AttemptResult } from './attempt-finish';
import type { RetryPolicy } from './backoff';
import { errorFingerprint } from './fingerprint';

const retry: RetryPolicy = { maxAttempts: 3, backoff: 'fixed', baseDelayMs: 1000, maxDelayMs: 60_000, jitter: 0 };
const NOW = 1_700_000_000_000;
const boom = { name: 'TypeError', message: 'boom 42', stack: 'TypeError: boom 42\n    at work (/app/handlers.js:3:9)' };
const failed: AttemptResult = { ok: false, error: boom };
const row = (attempts: number) => ({ id: 7, leaseToken: 'lease-7', attempts });

describe('decideAttemptFinish', () => {
  it.each<{ name: string; result: AttemptResult; abortedBy: AbortedBy; attempts: number; outcome: string; runAt?: number }>([
    { name: 'success', result: { ok: true }, abortedBy: null, attempts: 1, outcome: 'succeeded' },
    { name: 'success although a shutdown abort came after', result: { ok: true }, abortedBy: 'shutdown', attempts: 1, outcome: 'succeeded' },
    { name: 'success although a cancel came after', result: { ok: true }, abortedBy: 'cancel', attempts: 3, outcome: 'succeeded' },
    { name: 'shutdown: handed back', result: failed, abortedBy: 'shutdown', attempts: 3, outcome: 'release' },
    { name: 'operator cancel', result: failed, abortedBy: 'cancel', attempts: 1, outcome: 'canceled' },
    { name: 'failure with attempts left', result: failed, abortedBy: null, attempts: 1, outcome: 'retry', runAt: NOW + 1000 },
    { name: 'failure on the second of three', result: failed, abortedBy: null, attempts: 2, outcome: 'retry', runAt: NOW + 1000 },
    { name: 'failure of the last attempt', result: failed, abortedBy: null, attempts: 3, outcome: 'dead' },
    { name: 'failure past the last attempt (policy lowered)', result: failed, abortedBy: null, attempts: 9, outcome: 'dead' },
    { name: 'attempts 0 counts as the first', result: failed, abortedBy: null, attempts: 0, outcome: 'retry', runAt: NOW + 1000 },
  ])('$name → $outcome', ({ result, abortedBy, attempts, outcome, runAt }) => {
    const f = decideAttemptFinish(row(attempts), result, abortedBy, retry, NOW, () => 0.5);
    expect(f.id).toBe(7);
    expect(f.leaseToken).toBe('lease-7');
    expect(f.outcome).toBe(outcome);
    expect(f.runAt?.getTime()).toBe(runAt);
    if (outcome === 'retry' || outcome === 'dead') {
      expect(f.error).toBe('TypeError: boom 42');
      expect(f.stack).toBe(boom.stack);
      expect(f.fingerprint).toBe(errorFingerprint(boom));
    } else {
      expect(Object.keys(f).sort()).toEqual(['id', 'leaseToken', 'outcome']);
    }
  });

  it('the retry delay follows the policy (exponential, jitter from the random source)', () => {
    const exp: RetryPolicy = { maxAttempts: 5, backoff: 'exponential', baseDelayMs: 100, maxDelayMs: 60_000, jitter: 1 };
    expect(decideAttemptFinish(row(3), failed, null, exp, NOW, () => 0.5).runAt?.getTime()).toBe(NOW + 200); // 400 · 0.5
    expect(decideAttemptFinish(row(3), failed, null, exp, NOW, () => 0).runAt?.getTime()).toBe(NOW);
  });

  it('cuts the error text and the stack, and leaves the stack out when there is none', () => {
    const long: AttemptResult = { ok: false, error: { name: 'Error', message: 'x'.repeat(20_000), stack: 's'.repeat(40_000) } };
    const f = decideAttemptFinish(row(1), long, null, retry, NOW, () => 0);
    expect(f.error).toHaveLength(MAX_ERROR_CHARS);
    expect(f.error!.startsWith('Error: xxx')).toBe(true);
    expect(f.stack).toHaveLength(MAX_STACK_CHARS);
    const bare = decideAttemptFinish(row(1), { ok: false, error: { name: 'TimeoutError', message: 'timed out after 5 ms' } }, null, retry, NOW, () => 0);
    expect(bare.error).toBe('TimeoutError: timed out after 5 ms');
    expect('stack' in bare).toBe(false);
  });
});
