import { describe, it, expect } from 'vitest';
import { releaseAttempt, reserveAttempt, SIGN_IN_RULES, signInThrottleKeys, type ThrottleState } from './sign-in-throttle';

const T0 = new Date('2026-11-24T10:00:00Z');
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);
const keys = signInThrottleKeys('Admin@Example.com', '10.0.0.1');
const pairKey = keys.find((k) => k.kind === 'pair')!.key;
const emailKey = keys.find((k) => k.kind === 'email')!.key;
const ipKey = keys.find((k) => k.kind === 'address')!.key;

/** Runs n attempts one after another (as the row locks serialize parallel ones). */
function run(n: number, start = new Map<string, ThrottleState>(), now = T0) {
  const state = new Map(start);
  let granted = 0;
  for (let i = 0; i < n; i++) {
    const r = reserveAttempt(keys, state, now);
    if (r.granted) granted++;
    for (const [k, s] of r.next) state.set(k, s);
  }
  return { granted, state };
}

describe('signInThrottleKeys', () => {
  it('one key per rule, the email lower-cased, in sorted order', () => {
    expect(keys.map((k) => k.kind).sort()).toEqual(['address', 'email', 'pair']);
    expect(emailKey).toBe('email:admin@example.com');
    expect(ipKey).toBe('ip:10.0.0.1');
    expect(pairKey).toBe('pair:["admin@example.com","10.0.0.1"]');
    expect(keys.map((k) => k.key)).toEqual([...keys.map((k) => k.key)].sort());
  });

  it('an address or email cannot forge another pair', () => {
    const a = signInThrottleKeys('a|b', 'c');
    const b = signInThrottleKeys('a', 'b|c');
    expect(a.find((k) => k.kind === 'pair')!.key).not.toBe(b.find((k) => k.kind === 'pair')!.key);
  });
});

describe('reserveAttempt', () => {
  it.each([1, 4, 5, 6, 30])('%d attempts in a row from one address at one email: min(n, 5) go ahead', (n) => {
    expect(run(n).granted).toBe(Math.min(n, SIGN_IN_RULES.pair.maxAttempts));
  });

  it('the attempt reaching the limit goes ahead and locks the pair for 15 minutes', () => {
    const { state } = run(4);
    const fifth = reserveAttempt(keys, state, T0);
    expect(fifth.granted).toBe(true);
    expect(fifth.newlyLocked.map((k) => k.kind)).toEqual(['pair']);
    expect(fifth.retryAfterMs).toBe(15 * 60_000);
    expect(fifth.next.get(pairKey)).toEqual({ attempts: 5, windowStart: T0, lockedUntil: at(15) });
  });

  it('a refused attempt changes nothing and says how long the lock lasts', () => {
    const { state } = run(5);
    const r = reserveAttempt(keys, state, at(10));
    expect(r).toEqual({ granted: false, next: new Map(), newlyLocked: [], retryAfterMs: 5 * 60_000 });
  });

  it('once the lock has passed a new window starts', () => {
    const { state } = run(5);
    const r = reserveAttempt(keys, state, at(15));
    expect(r.granted).toBe(true);
    expect(r.next.get(pairKey)).toEqual({ attempts: 1, windowStart: at(15), lockedUntil: null });
    // The email's slower window keeps counting.
    expect(r.next.get(emailKey)!.attempts).toBe(6);
  });

  it('attempts older than the window are forgotten', () => {
    const start = new Map([[pairKey, { attempts: 4, windowStart: at(-16), lockedUntil: null }]]);
    expect(reserveAttempt(keys, start, T0).next.get(pairKey)).toEqual({ attempts: 1, windowStart: T0, lockedUntil: null });
  });

  it('the email locks everywhere after 50 attempts in an hour, from whatever addresses', () => {
    const state = new Map<string, ThrottleState>();
    let granted = 0;
    for (let ip = 0; ip < 20; ip++) {
      const ks = signInThrottleKeys('admin@example.com', `10.9.0.${ip}`);
      for (let i = 0; i < 5; i++) {
        const r = reserveAttempt(ks, state, at(ip));
        if (r.granted) granted++;
        for (const [k, s] of r.next) state.set(k, s);
      }
    }
    expect(granted).toBe(SIGN_IN_RULES.email.maxAttempts);
    expect(reserveAttempt(signInThrottleKeys('admin@example.com', '10.10.10.10'), state, at(20)).granted).toBe(false);
    expect(reserveAttempt(signInThrottleKeys('other@example.com', '10.10.10.10'), state, at(20)).granted).toBe(true);
  });

  it('one address spraying many emails locks after 20', () => {
    const state = new Map<string, ThrottleState>();
    let granted = 0;
    for (let i = 0; i < 40; i++) {
      const r = reserveAttempt(signInThrottleKeys(`user${i}@example.com`, '10.0.0.9'), state, T0);
      if (r.granted) granted++;
      for (const [k, s] of r.next) state.set(k, s);
    }
    expect(granted).toBe(SIGN_IN_RULES.address.maxAttempts);
  });
});

describe('releaseAttempt', () => {
  it('clears the pair, gives the email and address their attempt back, and lifts a lock the attempt set', () => {
    const state = new Map<string, ThrottleState>([
      [pairKey, { attempts: 3, windowStart: T0, lockedUntil: null }],
      [ipKey, { attempts: 1, windowStart: T0, lockedUntil: null }],
      [emailKey, { attempts: 50, windowStart: T0, lockedUntil: at(15) }],
    ]);
    const out = releaseAttempt(keys, state);
    expect(out.get(pairKey)).toBeNull();
    expect(out.get(ipKey)).toBeNull();
    expect(out.get(emailKey)).toEqual({ attempts: 49, windowStart: T0, lockedUntil: null });
  });
});
