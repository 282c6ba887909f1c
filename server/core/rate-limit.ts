// Rate limits (issue #19): N executions per interval with a burst, per task and per group
// key, enforced by the claim (server/db/sql/functions/sluice_claim_rows.sql, which does the
// same arithmetic in SQL; test/integration/engine-rate-limits.test.ts pins the two
// together). Pure: no I/O imports (server/core rule).
//
// The rule (GCRA, the generic cell rate algorithm, written as a virtual scheduling clock):
//
//   T   = per / limit                     the emission interval, ms per unit of cost
//   TAT                                   theoretical arrival time of the next unit (ms);
//                                         absent = long past (an idle scope is full)
//   at time t an execution of cost c whose scope already admitted cost `before` in this
//   claim is admitted  iff  max(TAT, t) + before × T − t ≤ burst × T
//   after the claim:        TAT ← max(TAT, t) + (sum of admitted costs) × T
//
// So an idle scope starts `burst + 1` unit executions at once, then one every T; in any
// window of length `per` at most `limit + burst` unit executions start (the bound the
// integration test and bench W5 check), and over a long run the rate is `limit / per`.
// A cost (the task's `rateCostPath`, a number in the payload; default 1) is charged
// after the fact: an execution is admitted when the scope has any allowance left and
// then puts the scope in debt by its whole cost, so a cost larger than the burst is never
// starved; the window bound becomes limit + burst + (largest cost − 1) cost units.
//
// "Next slot": a held scope's next execution is due at TAT − burst × T.
// The state is one row per scope (rate_state: task, group, key → tat_ms); a row whose
// TAT is in the past says nothing an absent row does not, so slot GC deletes those.

export interface RateSpec {
  /** Executions (cost units) per interval. */
  limit: number;
  /** The interval, ms. */
  per: number;
  /** Executions that may start at once beyond the steady spacing. */
  burst: number;
}

/** A per-key override: any of the three fields; the rest come from the group's rate. */
export type RateOverride = Partial<RateSpec>;

export interface GroupRate extends RateSpec {
  overrides: Record<string, RateOverride>;
}

/** The emission interval T, ms per unit of cost. */
export function emissionIntervalMs(spec: RateSpec): number {
  return spec.per / spec.limit;
}

/**
 * How much cost the scope may still start at `nowMs`, in cost units: an execution whose
 * scope already admitted `before` in the same claim is admitted iff before ≤ allowance.
 * Negative: the scope is held (nothing starts).
 */
export function rateAllowance(spec: RateSpec, tatMs: number | null, nowMs: number): number {
  const t = emissionIntervalMs(spec);
  const ahead = Math.max(tatMs ?? nowMs, nowMs) - nowMs;
  return spec.burst - ahead / t;
}

/** ms until the scope's next execution may start (0 = now). */
export function nextSlotInMs(spec: RateSpec, tatMs: number | null, nowMs: number): number {
  if (tatMs === null) return 0;
  return Math.max(0, tatMs - spec.burst * emissionIntervalMs(spec) - nowMs);
}

/**
 * Admit a claim's candidates of one scope in order: the prefix whose cost admitted before
 * each fits the allowance, and the scope's new TAT. (Costs are ≥ 0, so the admitted set
 * is a prefix.)
 */
export function admit(spec: RateSpec, tatMs: number | null, nowMs: number, costs: readonly number[]): { admitted: number; tatMs: number | null } {
  const allowance = rateAllowance(spec, tatMs, nowMs);
  let before = 0;
  let admitted = 0;
  for (const c of costs) {
    if (before > allowance) break;
    before += c;
    admitted++;
  }
  if (admitted === 0) return { admitted, tatMs };
  return { admitted, tatMs: chargeTat(spec, tatMs, nowMs, before) };
}

/** The TAT after starting `cost` units at `nowMs`. */
export function chargeTat(spec: RateSpec, tatMs: number | null, nowMs: number, cost: number): number {
  return Math.max(tatMs ?? nowMs, nowMs) + cost * emissionIntervalMs(spec);
}

/** A key's rate in a group: the group's, with the key's override fields on top. */
export function effectiveKeyRate(rate: GroupRate, key: string): RateSpec {
  // Own properties only: a key named "constructor" must not read Object.prototype.
  const o = Object.hasOwn(rate.overrides, key) ? rate.overrides[key]! : {};
  return { limit: o.limit ?? rate.limit, per: o.per ?? rate.per, burst: o.burst ?? rate.burst };
}

/** The most unit executions a scope starts in any window of length `per`. */
export function maxPerWindow(spec: RateSpec): number {
  return spec.limit + spec.burst;
}

/** Largest cost one execution may carry (a bigger payload value counts as this). */
export const RATE_COST_MAX = 1_000_000;

/**
 * An execution's cost from its payload value at the task's `rateCostPath`: a finite
 * number ≥ 0 (capped at RATE_COST_MAX); anything else (absent, a string, negative) = 1.
 * sluice_rate_cost (SQL) is the same rule.
 */
export function rateCost(value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) return 1;
  return Math.min(value, RATE_COST_MAX);
}

/**
 * The greatest number of starts in any window of `windowMs` over sorted start times
 * (ms), and how far above `limit` that is (never negative): bench W5's and the
 * integration test's measure.
 */
export function maxInAnyWindow(startsMs: readonly number[], windowMs: number): number {
  let best = 0;
  let lo = 0;
  for (let hi = 0; hi < startsMs.length; hi++) {
    while (startsMs[hi]! - startsMs[lo]! >= windowMs) lo++;
    best = Math.max(best, hi - lo + 1);
  }
  return best;
}

/** "50/s", "100/min", "7 per 1500 ms", with ", burst 5" when there is one. */
export function formatRate(spec: RateSpec): string {
  const unit = spec.per === 1000 ? '/s' : spec.per === 60_000 ? '/min' : spec.per === 3_600_000 ? '/h' : ` per ${spec.per} ms`;
  return `${spec.limit}${unit}${spec.burst > 0 ? `, burst ${spec.burst}` : ''}`;
}

/** "1.2 s", "350 ms": a wait as why-waiting says it. */
export function formatWait(ms: number): string {
  if (ms < 1000) return `${Math.ceil(ms)} ms`;
  return `${(ms / 1000).toFixed(1)} s`;
}

/** Shortest wait a claim loop takes after a claim a rate limit cut short (a key's next token
 *  may be this close): 5 ms. */
export const RATE_WAKE_MIN_MS = 5;

/**
 * How long a claim loop waits after a claim of a rate-limited task came back short: a
 * quarter of the smallest emission interval T of the task's own rate and of its groups'
 * rates, overrides included (never below RATE_WAKE_MIN_MS); null when the task has no rate.
 * A key's tokens accrue for burst × T past its slot, so a claim at most T/4 late loses
 * nothing when burst ≥ 1; with burst 0 each start may still come up to T/4 late (≈ 89% of
 * the limit at worst). With the poll interval alone (50 ms by default) a claim that came
 * later than burst × T lost the key the time beyond it (burst 0, T = 20 ms: ~20/s for 50/s).
 */
export function rateWakeMs(def: { rate?: RateSpec | undefined; groups: readonly { rate?: GroupRate | undefined }[] }): number | null {
  const specs: RateSpec[] = [];
  if (def.rate) specs.push(def.rate);
  for (const g of def.groups) {
    if (!g.rate) continue;
    specs.push(g.rate);
    for (const key of Object.keys(g.rate.overrides)) specs.push(effectiveKeyRate(g.rate, key));
  }
  if (specs.length === 0) return null;
  return Math.max(RATE_WAKE_MIN_MS, Math.min(...specs.map(emissionIntervalMs)) / 4);
}
