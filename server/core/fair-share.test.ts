import { describe, expect, it } from 'vitest';
import { fairClaim, fairLevel, fairShares, jainIndex, keysOverShare, keyWeight, shareMultiple, sharesBind, type FairCandidate, type FairKey } from './fair-share';

const key = (k: string, running: number, weight = 1, waiting = true, limit?: number): FairKey => ({ key: k, running, weight, waiting, limit });
const keys = (...ks: FairKey[]) => new Map(ks.map((k) => [k.key, k]));
/** A window in claim order from a string like 'aaab': one row per letter, ids from 1. */
const windowOf = (s: string): FairCandidate[] => [...s].map((k, i) => ({ id: i + 1, key: k === '-' ? null : k }));
const tenantsOf = (w: FairCandidate[], ids: number[]) => ids.map((id) => w.find((c) => c.id === id)!.key ?? '-').join('');

describe('fairLevel', () => {
  it.each([
    { name: 'equal weights: capacity ÷ waiting keys', capacity: 12, ks: [key('a', 0), key('b', 0), key('c', 0), key('d', 0)], L: 3 },
    { name: 'weights 1:2:4 of 14', capacity: 14, ks: [key('a', 0, 1), key('b', 0, 2), key('c', 0, 4)], L: 2 },
    { name: 'a key with nothing waiting keeps what it holds; the rest is shared', capacity: 12, ks: [key('a', 4, 1, false), key('b', 0), key('c', 0)], L: 4 },
    { name: 'nobody waiting: no level', capacity: 12, ks: [key('a', 3, 1, false)], L: null },
  ])('$name', ({ capacity, ks, L }) => expect(fairLevel(capacity, ks)).toBe(L));
});

describe('keysOverShare', () => {
  it.each([
    { name: 'the flooding key at its share is skipped', capacity: 12, ks: [key('t0', 3), key('t1', 2), key('t2', 3), key('t3', 3)], over: ['t0', 't2', 't3'] },
    { name: 'everyone below: nobody skipped', capacity: 12, ks: [key('t0', 2), key('t1', 2)], over: [] },
    { name: 'by weight: 2 of weight 1 is at L = 2, 7 of weight 4 is below', capacity: 14, ks: [key('a', 2, 1), key('b', 3, 2), key('c', 7, 4)], over: ['a'] },
    { name: 'a key not waiting is never skipped (it has no rows)', capacity: 12, ks: [key('a', 9, 1, false), key('b', 3)], over: ['b'] },
  ])('$name', ({ capacity, ks, over }) => expect(keysOverShare(capacity, ks)).toEqual(over));
});

describe('sharesBind (fair passes, or claim order when the limits already give every waiting key its share)', () => {
  it.each([
    { name: 'W2 by tenant: 10 × limit 20 = concurrency 200, two short of their limit', capacity: 200,
      ks: [...Array.from({ length: 8 }, (_, i) => key(`t${i}`, 20, 1, false, 20)), key('t8', 19, 1, true, 20), key('t9', 18, 1, true, 20)], binds: false },
    { name: 'a waiting key without a limit could take every slot', capacity: 200, ks: [key('a', 0, 1, true, 20), key('b', 0)], binds: true },
    { name: 'W6: limit 200 per tenant over concurrency 50 — the share (5) is below the limit', capacity: 50, ks: [key('t0', 40, 1, true, 200), key('t1', 1, 1, true, 200)], binds: true },
    { name: 'one share below its limit is enough to bind', capacity: 30, ks: [key('a', 0, 1, true, 10), key('b', 0, 1, true, 10), key('c', 0, 1, true, 11)], binds: true },
    { name: 'weights count: at L = 10 a weight-2 key with limit 21 has a share of 20, below it', capacity: 40, ks: [key('a', 0, 2, true, 21), key('b', 0, 1, true, 10), key('c', 0, 1, true, 10)], binds: true },
    { name: '… and does not at L = 10 (share 20)', capacity: 40, ks: [key('a', 0, 2, true, 20), key('b', 0, 1, true, 10), key('c', 0, 1, true, 10)], binds: false },
    { name: 'nobody waiting: no level, the fair passes decide (they find nothing)', capacity: 12, ks: [key('a', 3, 1, false, 3)], binds: true },
    { name: 'W6 once the small tenants ran dry: one key waits, below its limit — nobody to share with', capacity: 50, ks: [key('t0', 40, 1, true, 200), key('t1', 2, 1, false, 200)], binds: false },
    { name: 'one key waiting without a limit: the same', capacity: 50, ks: [key('t0', 0, 1, true), key('t1', 3, 1, false)], binds: false },
    { name: 'two keys waiting, one without a limit: binds', capacity: 50, ks: [key('t0', 0, 1, true), key('t1', 3, 1, true, 200)], binds: true },
  ])('$name', ({ capacity, ks, binds }) => expect(sharesBind(capacity, ks)).toBe(binds));

  it('when nothing binds, fairClaim keeps claim order: the flood\'s oldest rows first, as fifo would', () => {
    const w = windowOf('aaab');
    const ks = keys(key('a', 0, 1, true, 10), key('b', 0, 1, true, 10));
    expect(tenantsOf(w, fairClaim(w, ks, 20, 3))).toBe('aaa');
    // the same keys without limits share by level instead
    expect([...tenantsOf(w, fairClaim(w, keys(key('a', 0), key('b', 0)), 20, 3))].sort().join('')).toBe('aab');
  });
});

describe('fairClaim (the SQL fair passes, one window)', () => {
  it.each([
    {
      name: 'oldest-first would give the flood everything; fair gives each waiting key its deficit',
      window: 'aaaaaaaaabaaaaaaaaacaaaaaaaad',
      ks: [key('a', 3), key('b', 2), key('c', 2), key('d', 2)],
      capacity: 12,
      free: 3,
      got: 'bcd',
    },
    {
      name: 'weights 1:2:4 from empty: water-filling by weight',
      window: 'abcabcabcabcabcabcabcabc',
      ks: [key('a', 0, 1), key('b', 0, 2), key('c', 0, 4)],
      capacity: 14,
      free: 14,
      got: 'cbcccbcabcbcca',
    },
    {
      name: 'the deficit key has no rows in the window: the last pass fills from everyone (never idle)',
      window: 'aaaa',
      ks: [key('a', 3), key('b', 1)],
      capacity: 6,
      free: 2,
      got: 'aa',
    },
    {
      name: 'a key takes at most what brings it to L in the fair passes; what is left goes by level',
      window: 'abbbbbb',
      ks: [key('a', 0), key('b', 1)],
      capacity: 4,
      free: 3,
      got: 'abb',
    },
    {
      name: 'rows without a key of the fair group are not shared: they go first',
      window: 'aa-a',
      ks: [key('a', 0), key('b', 0)],
      capacity: 4,
      free: 2,
      got: '-a',
    },
    {
      name: '… unless one key alone waits: nobody to share with, claim order',
      window: 'aa-a',
      ks: [key('a', 0)],
      capacity: 4,
      free: 2,
      got: 'aa',
    },
  ])('$name', ({ window, ks, capacity, free, got }) => {
    const w = windowOf(window);
    const ids = fairClaim(w, keys(...ks), capacity, free);
    expect(ids.length).toBeLessThanOrEqual(free);
    expect([...tenantsOf(w, ids)].sort().join('')).toBe([...got].sort().join(''));
  });

  it('repeated refills of a 90% flood converge to the equal split and stay there', () => {
    const running = new Map([['t0', 12], ['t1', 0], ['t2', 0], ['t3', 0]]);
    // the window is always mostly t0 (oldest-first backlog), with one row of each other tenant
    const w = windowOf('aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaabcd');
    const name = (k: string) => ({ a: 't0', b: 't1', c: 't2', d: 't3' })[k]!;
    for (let round = 0; round < 40; round++) {
      // the most loaded tenant finishes one execution; one slot is claimed
      const top = [...running].sort((x, y) => y[1] - x[1])[0]![0];
      running.set(top, running.get(top)! - 1);
      const ks = keys(...[...running].map(([k, r]) => key(k, r)));
      const renamed = w.map((c) => ({ id: c.id, key: c.key && name(c.key) }));
      const ids = fairClaim(renamed, ks, 12, 1);
      for (const id of ids) {
        const k = renamed.find((c) => c.id === id)!.key!;
        running.set(k, running.get(k)! + 1);
      }
    }
    expect(Object.fromEntries(running)).toEqual({ t0: 3, t1: 3, t2: 3, t3: 3 });
  });
});

describe('fairShares, jainIndex, shareMultiple, keyWeight', () => {
  it('splits by weight among the waiting keys', () => {
    expect(Object.fromEntries(fairShares([{ key: 'a', weight: 1 }, { key: 'b', weight: 1 }]))).toEqual({ a: 0.5, b: 0.5 });
    const s = fairShares([{ key: 'a', weight: 1 }, { key: 'b', weight: 2 }, { key: 'c', weight: 4 }]);
    expect(s.get('c')).toBeCloseTo(4 / 7);
    expect([...s.values()].reduce((x, y) => x + y, 0)).toBeCloseTo(1);
  });
  it.each([
    { xs: [1, 1, 1, 1], j: 1 },
    { xs: [1, 0, 0, 0], j: 0.25 },
    { xs: [90, 10 / 9, 10 / 9, 10 / 9, 10 / 9, 10 / 9, 10 / 9, 10 / 9, 10 / 9, 10 / 9], j: 0.1228 },
    { xs: [], j: 1 },
  ])("Jain's index of $xs is $j", ({ xs, j }) => expect(jainIndex(xs)).toBeCloseTo(j, 3));
  it('says how many times its weighted share a key runs', () => {
    expect(shareMultiple(9, 1, 3)).toBe(3);
    expect(shareMultiple(6, 2, 3)).toBe(1);
    expect(shareMultiple(1, 1, 0)).toBe(0);
  });
  it('weights default to 1; own keys only', () => {
    expect(keyWeight({ acme: 3 }, 'acme')).toBe(3);
    expect(keyWeight({ acme: 3 }, 'other')).toBe(1);
    expect(keyWeight(undefined, 'x')).toBe(1);
    expect(keyWeight({}, 'constructor')).toBe(1);
  });
});
