// Sign-in throttling decisions, pure (the service holds the rows locked while it asks).
//
// An attempt is RESERVED before its password is verified: every key it counts against
// (the email at this address, the address, the email anywhere) gains one attempt, and the
// attempt goes ahead only if none of them was locked. The reservation reaching a rule's
// limit locks that key at once, so the n-th attempt is the last one verified however many
// arrive in parallel: 30 parallel guesses from one address verify exactly 5 passwords.
// A successful sign-in gives its reservation back (the pair key is cleared outright).
//
// Three rules, from strict to slow:
// - pair (email at one address): 5 attempts in 15 minutes. A guesser at one address gets
//   five tries at one account, and locks out nobody else.
// - address: 20 attempts in 15 minutes across any emails (password spraying).
// - email, from every address: 50 attempts in an hour (a guesser with many addresses).
//   Slower on purpose: from one address nobody can reach it, so nobody can lock the admin
//   out from one address; it takes ten addresses each spending its five.

export interface ThrottleRule {
  /** Attempts within the window; the one reaching it is the last allowed. */
  maxAttempts: number;
  windowMinutes: number;
  lockMinutes: number;
}

export type ThrottleKind = 'pair' | 'address' | 'email';

export const SIGN_IN_RULES: Record<ThrottleKind, ThrottleRule> = {
  pair: { maxAttempts: 5, windowMinutes: 15, lockMinutes: 15 },
  address: { maxAttempts: 20, windowMinutes: 15, lockMinutes: 15 },
  email: { maxAttempts: 50, windowMinutes: 60, lockMinutes: 15 },
};

/** One key's row: attempts reserved in the current window and not given back. */
export interface ThrottleState {
  attempts: number;
  windowStart: Date;
  lockedUntil: Date | null;
}

export interface ThrottleKey {
  key: string;
  kind: ThrottleKind;
}

/** The keys one sign-in counts against, in a fixed (sorted) order so that concurrent
 *  sign-ins lock shared rows in the same order and never deadlock. */
export function signInThrottleKeys(email: string, address: string): ThrottleKey[] {
  const e = email.trim().toLowerCase();
  const keys: ThrottleKey[] = [
    { key: `pair:${JSON.stringify([e, address])}`, kind: 'pair' },
    { key: `ip:${address}`, kind: 'address' },
    { key: `email:${e}`, kind: 'email' },
  ];
  return keys.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

const MINUTE = 60_000;

function isLocked(s: ThrottleState | null, now: Date): boolean {
  return !!s?.lockedUntil && s.lockedUntil.getTime() > now.getTime();
}

/** A window that has run out, or a lock that has passed, starts afresh. */
function isStale(s: ThrottleState, rule: ThrottleRule, now: Date): boolean {
  return (
    s.windowStart.getTime() <= now.getTime() - rule.windowMinutes * MINUTE ||
    (s.lockedUntil !== null && s.lockedUntil.getTime() <= now.getTime())
  );
}

export interface Reservation {
  /** Verify the password only when true. */
  granted: boolean;
  /** Rows to write back (unchanged when refused). */
  next: Map<string, ThrottleState>;
  /** Keys this attempt locked (its reservation reached the limit). */
  newlyLocked: ThrottleKey[];
  /** When refused, or when this attempt locked a key: how long until every lock passes. */
  retryAfterMs: number;
}

export function reserveAttempt(
  keys: readonly ThrottleKey[],
  current: ReadonlyMap<string, ThrottleState>,
  now: Date,
  rules: Record<ThrottleKind, ThrottleRule> = SIGN_IN_RULES,
): Reservation {
  const locks = keys.map((k) => current.get(k.key)).filter((s): s is ThrottleState => isLocked(s ?? null, now));
  if (locks.length > 0) {
    const until = Math.max(...locks.map((s) => s.lockedUntil!.getTime()));
    return { granted: false, next: new Map(), newlyLocked: [], retryAfterMs: until - now.getTime() };
  }
  const next = new Map<string, ThrottleState>();
  const newlyLocked: ThrottleKey[] = [];
  let until = 0;
  for (const k of keys) {
    const rule = rules[k.kind];
    const s = current.get(k.key);
    const fresh = !s || isStale(s, rule, now);
    const attempts = fresh ? 1 : s.attempts + 1;
    const lockedUntil = attempts >= rule.maxAttempts ? new Date(now.getTime() + rule.lockMinutes * MINUTE) : null;
    if (lockedUntil) {
      newlyLocked.push(k);
      until = Math.max(until, lockedUntil.getTime());
    }
    next.set(k.key, { attempts, windowStart: fresh ? now : s.windowStart, lockedUntil });
  }
  return { granted: true, next, newlyLocked, retryAfterMs: until === 0 ? 0 : until - now.getTime() };
}

/**
 * After a correct password: the pair key is cleared (null: delete the row), the others get
 * the attempt back (a row left with none is deleted too), and a lock that only this
 * attempt's reservation set is lifted.
 */
export function releaseAttempt(
  keys: readonly ThrottleKey[],
  current: ReadonlyMap<string, ThrottleState>,
  rules: Record<ThrottleKind, ThrottleRule> = SIGN_IN_RULES,
): Map<string, ThrottleState | null> {
  const out = new Map<string, ThrottleState | null>();
  for (const k of keys) {
    const s = current.get(k.key);
    if (!s) continue;
    if (k.kind === 'pair') {
      out.set(k.key, null);
      continue;
    }
    const attempts = Math.max(0, s.attempts - 1);
    if (attempts === 0) {
      out.set(k.key, null);
      continue;
    }
    out.set(k.key, { attempts, windowStart: s.windowStart, lockedUntil: attempts < rules[k.kind].maxAttempts ? null : s.lockedUntil });
  }
  return out;
}
