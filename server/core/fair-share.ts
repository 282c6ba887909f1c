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
// level of k is r(k) ÷ w(k). The keys *waiting* are those with rows queued that are not at
// their concurrency limit; they share what the others do not hold:
//
//     L = (concurrency − Σ r(k) of keys not waiting) ÷ Σ w(k) of waiting keys
//
// A claim then hands its free slots out in fair passes (at most 3):
//   1. skip the rows of waiting keys already at L or above (level ≥ L);
//   2. order the rest by (r(k) + rank of the row within k) ÷ w(k), then claim order —
//      water-filling, deficit round robin with a quantum of one execution per unit of
//      weight — and keep a key's rows only while the key is below L before taking them
//      ((r(k) + rank − 1) ÷ w(k) < L);
//   3. count what was kept as running and go again while slots are left and a pass found
//      rows; a pass whose head is clogged by skipped keys (more of their rows skipped than
//      the window holds, or none found within the read bound) sets those rows aside on
//      their key first; a key below its share gets back as many of its set-aside rows as it
//      is short (its oldest, at the head of the claim index) before the first pass;
//   4. then one pass over every key in the same order fills what is left, after giving
//      back set-aside rows if it came up short: fair share never leaves a slot idle that
//      oldest-first would fill.
// When the limits already give every waiting key its share — L × w(k) ≥ limit(k) for each
// (none unlimited): the capacity the waiting keys share holds all of them at their limits at
// once — nobody waits for anybody's share, and the claim takes claim order instead of fair
// passes (`sharesBind` false; the SQL's v_nobind). In W2 with fair share by tenant (10
// tenants × limit 20 = the concurrency 200) that was every claim: the fair passes probed
// each tenant for the one or two rows its limit had room for, 41% of W1 against W2's 59%.
// So too when exactly one key waits: the slots the others leave are all its own whatever
// the order (W6 once the nine small tenants ran dry: ~89% of its burn-down, the flooding
// tenant alone, read through the fair passes).
// Every concurrency limit stays as it was (rows of saturated keys are never candidates; the
// per-key ranking admits all-or-nothing); only who goes first changes. Rows carrying no key
// of G are not shared: while shares bind they go first, in claim order. `order: 'fifo'` (the default) is claim
// order alone: priority, then oldest first.

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
  // own properties only: a key named "constructor" must not read Object.prototype
  return weights && Object.hasOwn(weights, key) ? weights[key]! : DEFAULT_WEIGHT;
}

/** A key of the fair group as the claim sees it. `waiting`: it has rows queued and is below its limit. */
export interface FairKey extends KeyShare {
  waiting: boolean;
  /** Its concurrency limit in the fair group; absent or null = none (it could take every slot). */
  limit?: number | null;
}

/** L = (capacity − what keys not waiting hold) ÷ Σ weights of the waiting keys; null when none waits. */
export function fairLevel(capacity: number, keys: readonly FairKey[]): number | null {
  const w = keys.filter((k) => k.waiting).reduce((s, k) => s + k.weight, 0);
  if (w <= 0) return null;
  const held = keys.filter((k) => !k.waiting).reduce((s, k) => s + k.running, 0);
  return (capacity - held) / w;
}

/** Step 1: the waiting keys a fair pass skips (already at their share or over it). */
export function keysOverShare(capacity: number, keys: readonly FairKey[]): string[] {
  const L = fairLevel(capacity, keys);
  if (L === null) return [];
  return keys.filter((k) => k.waiting && k.running / k.weight >= L).map((k) => k.key);
}

/**
 * Whether fair order can change who runs: false when some key waits and every waiting key's
 * share of the capacity (L × weight) is at least its limit, so the limits alone let all of
 * them run at their limits at once, or when exactly one key waits (it has nobody to share
 * the free slots with); then the claim goes in claim order. True while two or more keys
 * wait and one of them has no limit or a share below it — or when nobody waits (no level).
 */
export function sharesBind(capacity: number, keys: readonly FairKey[]): boolean {
  const L = fairLevel(capacity, keys);
  if (L === null) return true;
  const waiting = keys.filter((k) => k.waiting);
  // one key waiting has nobody to share with: every slot the others leave is its own
  if (waiting.length === 1) return false;
  return waiting.some((k) => k.limit === undefined || k.limit === null || L * k.weight < k.limit);
}

export interface FairCandidate {
  id: number;
  /** The row's key in the fair group (null: it carries none; it shares as its own key ''). */
  key: string | null;
}

/**
 * One fair claim of `free` slots over a window of candidates (in claim order, none of a
 * saturated key), the way the SQL does it: fair passes (steps 1–3) then a pass over every
 * key (step 4). `keys` are the fair group's keys by name (running, weight, waiting);
 * returns the ids handed out, in the order they were kept.
 */
export function fairClaim(window: readonly FairCandidate[], keys: ReadonlyMap<string, FairKey>, capacity: number, free: number): number[] {
  // the limits already give every waiting key its share: claim order (the SQL's v_nobind)
  if (!sharesBind(capacity, [...keys.values()])) return window.slice(0, Math.max(0, free)).map((c) => c.id);
  const running = new Map([...keys].map(([k, v]) => [k, v.running]));
  const taken: number[] = [];
  const pass = (fair: boolean) => {
    const current = [...keys.values()].map((k) => ({ ...k, running: running.get(k.key) ?? 0 }));
    const L = fairLevel(capacity, current);
    if (fair && L === null) return 0;
    const skip = new Set(fair ? keysOverShare(capacity, current) : []);
    const rank = new Map<string, number>();
    const scored: { id: number; key: string | null; ord: number; pos: number; before: number }[] = [];
    window.forEach((c, ord) => {
      if (taken.includes(c.id) || (c.key !== null && skip.has(c.key))) return;
      if (c.key === null) return void scored.push({ id: c.id, key: null, ord, pos: 0, before: -Infinity });
      const n = (rank.get(c.key) ?? 0) + 1;
      rank.set(c.key, n);
      const w = keys.get(c.key)?.weight ?? DEFAULT_WEIGHT;
      const r = running.get(c.key) ?? 0;
      scored.push({ id: c.id, key: c.key, ord, pos: (r + n) / w, before: (r + n - 1) / w });
    });
    const kept = scored
      .filter((c) => !fair || c.before < (L as number))
      .sort((a, b) => a.pos - b.pos || a.ord - b.ord)
      .slice(0, free - taken.length);
    for (const c of kept) {
      taken.push(c.id);
      if (c.key !== null) running.set(c.key, (running.get(c.key) ?? 0) + 1);
    }
    return kept.length;
  };
  for (let i = 0; i < 3 && taken.length < free; i++) if (pass(true) === 0) break;
  if (taken.length < free) pass(false);
  return taken;
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
