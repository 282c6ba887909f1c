// Backpressure at enqueue, decided per partition. `room = max(0, maxDepth − depth)`
// executions fit; the first `min(incoming, room)` are accepted and the rest — the
// overflow — are handled by the task's policy:
//
//   reject    overflow rejected; the caller gets retryAfterMs (HTTP 429 + Retry-After).
//   throttle  everything accepted, and the call is delayed by
//               delayMs = min(throttleMaxDelayMs, throttleDelayMs × excess)
//             where excess = depth + incoming − maxDepth, the number of executions the
//             partition holds beyond maxDepth once these are in ("delay per execution
//             beyond maxDepth, capped", as the schema says). 0 when nothing overflows.
//   shed      x = overflow × shedPercent / 100 executions are dropped (counted), the rest
//             accepted. x is rounded stochastically: floor(x), plus one more with
//             probability frac(x) (one rand() call). So the expected count is exact even
//             for single-execution enqueues (50% of 1 drops one half of the time, not
//             always or never), and a batch is never off by more than one.
//   spill     overflow parked in the overflow table; drained back by spillDrainCount.
//             While a partition has spilled executions waiting (`spilled > 0`), new ones
//             spill too, so parked executions are not overtaken by later arrivals.
//
// Which executions get which fate is the caller's: by convention the first `accept` of
// the batch (in order) are accepted and the tail is rejected/shed/spilled.
// Pure: no I/O imports (server/core rule).
import type { TaskDefinition } from './task-definition';

export type BackpressurePolicy = TaskDefinition['backpressure']['policy'];

export interface BackpressureInput {
  policy: BackpressurePolicy;
  maxDepth: number;
  /** Current depth of the partition (queued + scheduled retries + blocked). */
  depth: number;
  /** Executions being enqueued to this partition now. */
  incoming: number;
  shedPercent: number;
  throttleDelayMs: number;
  throttleMaxDelayMs: number;
  retryAfterMs: number;
  /** Spilled executions of this partition still parked (spill policy only); default 0. */
  spilled?: number;
  rand: () => number;
}

export interface BackpressureDecision {
  accept: number;
  reject: number;
  shed: number;
  spill: number;
  /** throttle: how long to delay the accepted executions / the response. */
  delayMs: number;
  /** reject: present when something was rejected. */
  retryAfterMs?: number;
}

function nonNegInt(name: string, v: number): void {
  if (!Number.isSafeInteger(v) || v < 0) throw new RangeError(`${name} must be a non-negative integer, got ${v}`);
}

/** Stochastic rounding: floor(x) + (rand() < frac(x) ? 1 : 0). */
export function stochasticRound(x: number, rand: () => number): number {
  const whole = Math.floor(x);
  const frac = x - whole;
  if (frac === 0) return whole;
  const r = rand();
  return whole + (Number.isFinite(r) && r < frac ? 1 : 0);
}

export function decideBackpressure(input: BackpressureInput): BackpressureDecision {
  const { policy, maxDepth, depth, incoming } = input;
  if (!Number.isSafeInteger(maxDepth) || maxDepth < 1) throw new RangeError(`maxDepth must be an integer ≥ 1, got ${maxDepth}`);
  nonNegInt('depth', depth);
  nonNegInt('incoming', incoming);
  const spilledWaiting = input.spilled ?? 0;
  nonNegInt('spilled', spilledWaiting);

  const room = Math.max(0, maxDepth - depth);
  const fits = Math.min(incoming, room);
  const overflow = incoming - fits;
  const none: BackpressureDecision = { accept: incoming, reject: 0, shed: 0, spill: 0, delayMs: 0 };

  switch (policy) {
    case 'reject':
      if (overflow === 0) return none;
      return { accept: fits, reject: overflow, shed: 0, spill: 0, delayMs: 0, retryAfterMs: input.retryAfterMs };
    case 'throttle': {
      const excess = Math.max(0, depth + incoming - maxDepth);
      if (excess === 0) return none;
      const delayMs = Math.min(Math.max(0, input.throttleMaxDelayMs), Math.max(0, input.throttleDelayMs) * excess);
      return { ...none, delayMs };
    }
    case 'shed': {
      if (overflow === 0) return none;
      const pct = Math.min(100, Math.max(0, input.shedPercent));
      const shed = Math.min(overflow, stochasticRound((overflow * pct) / 100, input.rand));
      return { accept: incoming - shed, reject: 0, shed, spill: 0, delayMs: 0 };
    }
    case 'spill': {
      if (spilledWaiting > 0) return { accept: 0, reject: 0, shed: 0, spill: incoming, delayMs: 0 };
      if (overflow === 0) return none;
      return { accept: fits, reject: 0, shed: 0, spill: overflow, delayMs: 0 };
    }
    default: {
      const never: never = policy;
      throw new RangeError(`unknown backpressure policy "${String(never)}"`);
    }
  }
}

/** Spilled executions are drained back up to this fraction of maxDepth. */
export const SPILL_LOW_WATER = 0.8;

/**
 * How many spilled executions can go back into a partition now: refill up to the
 * low-water mark floor(0.8 × maxDepth) (at least 1), never more than are spilled.
 * Stopping below maxDepth leaves headroom, so a drained partition does not sit exactly at
 * the limit and bounce the next arrivals straight back into the overflow table.
 */
export function spillDrainCount(depth: number, maxDepth: number, spilled: number): number {
  if (!Number.isSafeInteger(maxDepth) || maxDepth < 1) throw new RangeError(`maxDepth must be an integer ≥ 1, got ${maxDepth}`);
  nonNegInt('depth', depth);
  nonNegInt('spilled', spilled);
  const lowWater = Math.max(1, Math.floor(maxDepth * SPILL_LOW_WATER));
  return Math.min(spilled, Math.max(0, lowWater - depth));
}
