// A token bucket for rate-controlled work (DLQ replay at N executions per second).
// Time is passed in, never read, so the arithmetic is testable to the millisecond.
// Over any interval of length T the bucket grants at most burst + rate·T tokens; the
// replay runner sleeps `msUntil` and takes what is granted, so a long replay runs at the
// rate and never in bursts larger than `burst`.
// Pure: no I/O imports (server/core rule).

export class TokenBucket {
  readonly ratePerS: number;
  readonly burst: number;
  private tokens: number;
  private last: number;

  constructor(ratePerS: number, burst: number, nowMs: number) {
    if (!(ratePerS > 0) || !Number.isFinite(ratePerS)) throw new RangeError(`rate must be a positive number, got ${ratePerS}`);
    if (!(burst >= 1) || !Number.isFinite(burst)) throw new RangeError(`burst must be at least 1, got ${burst}`);
    this.ratePerS = ratePerS;
    this.burst = burst;
    this.tokens = burst;
    this.last = nowMs;
  }

  private refill(nowMs: number): void {
    if (nowMs > this.last) {
      this.tokens = Math.min(this.burst, this.tokens + ((nowMs - this.last) * this.ratePerS) / 1000);
      this.last = nowMs;
    }
  }

  /** Whole tokens available now. */
  available(nowMs: number): number {
    this.refill(nowMs);
    return Math.floor(this.tokens + 1e-9);
  }

  /** Takes up to `n` whole tokens; returns how many were granted (0 … n). */
  take(n: number, nowMs: number): number {
    const got = Math.min(Math.max(0, Math.floor(n)), this.available(nowMs));
    this.tokens -= got;
    return got;
  }

  /** Gives back tokens taken for work that did not happen (never above burst). */
  giveBack(n: number): void {
    this.tokens = Math.min(this.burst, this.tokens + Math.max(0, n));
  }

  /** Milliseconds until `n` (≤ burst) whole tokens are available; 0 when they are. */
  msUntil(n: number, nowMs: number): number {
    this.refill(nowMs);
    const want = Math.min(Math.max(1, n), this.burst);
    const missing = want - this.tokens;
    return missing <= 1e-9 ? 0 : Math.ceil((missing * 1000) / this.ratePerS);
  }
}

/**
 * The burst for a replay rate: about a tenth of a second of work (so batches are sent
 * ~10 times a second), at least 1, at most `maxBatch`.
 */
export function replayBurst(ratePerS: number, maxBatch: number): number {
  return Math.max(1, Math.min(maxBatch, Math.floor(ratePerS / 10)));
}
