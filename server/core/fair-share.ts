// Weighted fair share across the keys of one group (issue #19): when several keys wait for
// a task's shared capacity, free slots go to the key furthest below its weighted share
// instead of to the oldest row. The claim (server/db/sql/functions/sluice_claim_rows.sql)
// computes the same rule in SQL; this file is the rule, with its tables
// (fair-share.test.ts), and the measures the tests and bench use (fair split, Jain's index).
// Pure: no I/O imports (server/core rule).
//
// The rule, for a task with `order: 'fair'` sharing by group G (its `fairGroup`, else its
// first group). Each key k of G has a weight w(k) (the group's `weights`, default 1) and a
// running count r(k) (the task's running rows carrying k — the claim's own count). The
// level of k is r(k) ÷ w(k); the fair level of the task is
//
//     L = concurrency ÷ Σ w(k) over the keys of G that have running rows
//
// (the task's capacity split by weight among the keys in use). A claim then:
//   1. skips the rows of keys over their share: level(k) > L; and when some key in use is
//      below L and still has rows queued (group_slots.queued > 0: a "hungry" key), also the
//      keys exactly at L, so the next slot goes to the hungry one. Keys with nothing
//      running are never skipped (level 0);
//   2. orders what is left by (r(k) + rank of the row within k) ÷ w(k), then claim order —
//      water-filling: the n-th row of a key is worth the level the key would reach by it,
//      which is deficit round robin with a quantum of one execution per unit of weight;
//   3. if step 1 left free slots unfilled (the keys below their share had no rows), takes
//      the rest from every key in the same order — fair share never leaves a slot idle.
// Every concurrency limit stays as it was (rows of saturated keys are never candidates;
// the per-key ranking admits all-or-nothing); only who goes first changes.
// `order: 'fifo'` (the default) is claim order alone: priority, then oldest first.

export const CLAIM_ORDERS = ['fifo', 'fair'] as const;
export type ClaimOrder = (typeof CLAIM_ORDERS)[number];

/** Bounds of a key's weight (whole numbers): 1 = the default share. */
export const WEIGHT_MIN = 1;
export const WEIGHT_MAX = 1000;
export const DEFAULT_WEIGHT = 1;

export interface KeyShare {
  key: string;
  running: number;
  weight: number;
  /** Rows of the key still queued (group_slots.queued); only compared with 0. */
  queued?: number;
}

/** The weight of a key: the group's `weights` entry, else 1. */
export function keyWeight(weights: Readonly<Record<string, number>> | undefined, key: string): number {
  return weights?.[key] ?? DEFAULT_WEIGHT;
}

/** L = capacity ÷ Σ weights of the keys in use (those with running rows); null when none is. */
export function fairLevel(capacity: number, inUse: readonly KeyShare[]): number | null {
  const w = inUse.filter((k) => k.running > 0).reduce((s, k) => s + k.weight, 0);
  return w > 0 ? capacity / w : null;
}

/** Step 1: the keys whose rows the first pass of a fair claim skips. */
export function keysOverShare(capacity: number, inUse: readonly KeyShare[]): string[] {
  const L = fairLevel(capacity, inUse);
  if (L === null) return [];
  const running = inUse.filter((k) => k.running > 0);
  const hungry = running.some((k) => k.running / k.weight < L && (k.queued ?? 0) > 0);
  return running.filter((k) => (hungry ? k.running / k.weight >= L : k.running / k.weight > L)).map((k) => k.key);
}

export interface FairCandidate {
  id: number;
  /** The row's key in the fair group (null: it carries none; it shares as its own key ''). */
  key: string | null;
}

/**
 * Steps 2–3 over one window of candidates (already in claim order, already free of
 * saturated keys): the order in which a fair claim hands out `free` slots, given each
 * key's running count and weight. `skip` (step 1) rows come after every other row.
 */
export function fairOrder(
  window: readonly FairCandidate[],
  running: ReadonlyMap<string, number>,
  weights: Readonly<Record<string, number>> | undefined,
  free: number,
  skip: readonly string[] = [],
): number[] {
  const skipped = new Set(skip);
  const rank = new Map<string, number>();
  const scored = window.map((c, ord) => {
    const k = c.key ?? '';
    const n = (rank.get(k) ?? 0) + 1;
    rank.set(k, n);
    const w = c.key === null ? DEFAULT_WEIGHT : keyWeight(weights, k);
    return { id: c.id, ord, pass: c.key !== null && skipped.has(c.key) ? 1 : 0, pos: ((running.get(k) ?? 0) + n) / w };
  });
  // pass 1 first; pass 2 (the skipped keys) only fills what pass 1 left
  return scored
    .sort((a, b) => a.pass - b.pass || a.pos - b.pos || a.ord - b.ord)
    .slice(0, Math.max(0, free))
    .map((c) => c.id);
}

/**
 * The fair split of `capacity` among the keys that have work waiting, by weight (what the
 * tests and W6 compare against): each key's share of the capacity, summing to 1.
 */
export function fairShares(waiting: readonly { key: string; weight: number }[]): Map<string, number> {
  const total = waiting.reduce((s, k) => s + k.weight, 0);
  return new Map(waiting.map((k) => [k.key, total > 0 ? k.weight / total : 0]));
}

/** Jain's fairness index of throughputs normalised by weight: 1 = perfectly fair, 1/n = one key took everything. */
export function jainIndex(xs: readonly number[]): number {
  if (xs.length === 0) return 1;
  const s = xs.reduce((a, b) => a + b, 0);
  const s2 = xs.reduce((a, b) => a + b * b, 0);
  return s2 === 0 ? 1 : (s * s) / (xs.length * s2);
}

/** How many times its weighted share a key runs: (r ÷ w) ÷ L, e.g. 3 = "used 3× its weight". */
export function shareMultiple(running: number, weight: number, level: number): number {
  return level > 0 ? running / weight / level : 0;
}
