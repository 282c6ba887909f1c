import { describe, expect, it } from 'vitest';
import {
  addOverrideHref,
  decodeKeyCursor,
  encodeKeyCursor,
  executionsOfKeyHref,
  groupRateOf,
  groupsOf,
  keyFairView,
  keyLimit,
  keyRateView,
  keysViewHref,
  parseOverrideParam,
  splitGroupKey,
  streamHeadStatus,
  taskKeysInput,
} from './key-views';

describe('key cursor', () => {
  it.each([
    { queued: 0, key: 'acme' },
    { queued: 2_147_483_647, key: 'a:b:c' },
    { queued: 17, key: 'ünï=cödé 🚀' },
  ])('round-trips %o', (c) => {
    expect(decodeKeyCursor(encodeKeyCursor(c))).toEqual(c);
  });

  it.each(['', ':acme', '01:acme', '-1:acme', '2147483648:acme', '1.5:acme', 'x:acme', '3:', '3:a\u0000b', '3:\udc00'])('refuses %j', (s) => {
    expect(decodeKeyCursor(s)).toBeNull();
  });
});

describe('key limits', () => {
  const [tenant] = groupsOf({ groups: [{ name: 'tenant', limit: 8, overrides: { acme: 20 } }, { bogus: true }] });
  it.each([
    ['acme', 20, true],
    ['globex', 8, false],
    ['constructor', 8, false],
    ['__proto__', 8, false],
  ] as const)('%s → %d (override %s)', (key, limit, override) => {
    expect(keyLimit(tenant!, key)).toEqual({ limit, override });
  });

  it('reads a stored definition leniently', () => {
    expect(groupsOf(null)).toEqual([]);
    expect(groupsOf({ groups: 'nope' })).toEqual([]);
    expect(groupsOf({ groups: [{ name: 'g', limit: 1 }] })).toEqual([{ name: 'g', limit: 1, keyPath: undefined, overrides: {} }]);
  });
});

describe('stream head status', () => {
  const now = new Date('2026-11-24T08:00:00Z');
  it.each([
    [{ state: 'running', attempts: 1, runAt: new Date('2026-11-24T07:59:00Z') }, 'running'],
    [{ state: 'queued', attempts: 2, runAt: new Date('2026-11-24T08:01:00Z') }, 'retry-scheduled'],
    [{ state: 'queued', attempts: 0, runAt: new Date('2026-11-24T08:01:00Z') }, 'scheduled'],
    [{ state: 'queued', attempts: 1, runAt: now }, 'queued'],
  ] as const)('%o → %s', (h, s) => {
    expect(streamHeadStatus(h, now)).toBe(s);
  });
});

describe('links', () => {
  it('filter the executions list by one key in exec-read’s URL shape', () => {
    expect(executionsOfKeyHref('send-email', 'tenant', 'acme')).toBe('/executions?task=send-email&group=tenant%3Dacme');
    expect(executionsOfKeyHref('t', 'tenant', 'a&b=c d')).toBe('/executions?task=t&group=tenant%3Da%26b%3Dc+d');
  });

  it('open the keys view and the prefilled editor, and read the override back', () => {
    expect(keysViewHref('send-email')).toBe('/tasks/send-email/keys');
    expect(keysViewHref('send-email', 'tenant', 'acme')).toBe('/tasks/send-email/keys?group=tenant&key=acme');
    const href = addOverrideHref('send-email', 'tenant', 'a=b&c');
    expect(href).toBe('/tasks/send-email?override=tenant%3Da%3Db%26c#sec-groups');
    const param = new URL(href, 'http://x').searchParams.get('override');
    expect(parseOverrideParam(param)).toEqual({ group: 'tenant', key: 'a=b&c' });
  });
});

describe('splitGroupKey', () => {
  it.each([
    ['tenant=acme', { group: 'tenant', key: 'acme' }],
    ['tenant=a=b', { group: 'tenant', key: 'a=b' }],
    ['tenant=', { group: 'tenant', key: '' }],
    ['=acme', null],
    ['acme', null],
  ] as const)('%s', (gk, out) => {
    expect(splitGroupKey(gk)).toEqual(out);
  });
});

describe('keys input', () => {
  it('names the field it refuses', () => {
    const r = taskKeysInput.safeParse({ task: 'send-email', key: 'a\u0000' });
    expect(r.success).toBe(false);
    expect(r.error!.issues[0]!.path).toEqual(['key']);
    expect(taskKeysInput.safeParse({ task: 'send-email', surprise: 1 }).success).toBe(false);
    expect(taskKeysInput.parse({ task: 'send-email' })).toEqual({ task: 'send-email', limit: 50 });
  });
});

describe('a key\'s rate and fair share (issue #19)', () => {
  const def = {
    order: 'fair',
    groups: [
      { name: 'tenant', limit: 5, weights: { acme: 3, zero: 0 }, rate: { limit: 50, per: 1000, burst: 5, overrides: { acme: { limit: 100 } } } },
      { name: 'region', limit: 2 },
    ],
  };
  it.each([
    // key, tat (ms), now, finished/min → label, next slot, held, current (per rate unit)
    ['beta', null, 1000, null, '50/s, burst 5', 0, false, null],
    ['beta', 1000 + 5 * 20, 1000, 600, '50/s, burst 5', 0, false, 10], // exactly at the burst edge: due now
    ['beta', 1000 + 5 * 20 + 30, 1000, 3000, '50/s, burst 5', 30, true, 50],
    ['acme', 1000 + 5 * 10 + 12, 1000, 6000, '100/s, burst 5', 12, true, 100], // the override's T = 10 ms
  ])('key %s, tat %s at %s: %s, next slot in %s ms', (key, tat, now, fin, label, next, held, current) => {
    expect(keyRateView(def, 'tenant', key, tat, now, fin)).toEqual({
      spec: key === 'acme' ? { limit: 100, per: 1000, burst: 5 } : { limit: 50, per: 1000, burst: 5 },
      label,
      nextSlotMs: next,
      held,
      current,
    });
  });
  it('no rate: null; a malformed stored rate: null', () => {
    expect(keyRateView(def, 'region', 'eu', null, 0, null)).toBeNull();
    expect(groupRateOf({ groups: [{ name: 'g', rate: { limit: 0, per: 1000 } }] }, 'g')).toBeNull();
    expect(groupRateOf({ groups: 'x' }, 'g')).toBeNull();
    expect(groupRateOf(null, 'g')).toBeNull();
  });
  it.each([
    ['acme', 6, { weight: 3, perWeight: 2 }],
    ['beta', 2, { weight: 1, perWeight: 2 }],
    ['zero', 1, { weight: 1, perWeight: 1 }], // not a valid weight: the default
    ['constructor', 1, { weight: 1, perWeight: 1 }], // own properties only
  ])('fair group, key %s running %s', (key, running, want) => {
    expect(keyFairView(def, 'tenant', key, running)).toEqual(want);
  });
  it('fair share only for the fair group of a fair task', () => {
    expect(keyFairView(def, 'region', 'eu', 1)).toBeNull();
    expect(keyFairView({ ...def, order: 'fifo' }, 'tenant', 'acme', 1)).toBeNull();
    expect(keyFairView({ ...def, fairGroup: 'region' }, 'region', 'eu', 1)).toEqual({ weight: 1, perWeight: 1 });
    expect(keyFairView({ ...def, fairGroup: 'region' }, 'tenant', 'acme', 1)).toBeNull();
  });
});
