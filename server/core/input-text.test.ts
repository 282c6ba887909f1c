import { describe, it, expect } from 'vitest';
import { z } from 'zod';
import { inputRecord, inputText, jsonInput, jsonProblem, MAX_JSON_DEPTH, NUL_MESSAGE, SURROGATE_MESSAGE, textProblem } from './input-text';

function nest(levels: number, leaf: unknown = 1, kind: 'object' | 'array' = 'object'): unknown {
  let v = leaf;
  for (let i = 0; i < levels; i++) v = kind === 'object' ? { a: v } : [v];
  return v;
}

describe('textProblem', () => {
  const cases: [string, string, string | null][] = [
    ['plain text', 'acme', null],
    ['empty', '', null],
    ['emoji (a surrogate pair)', 'tenant 🚀', null],
    ['accents and CJK', 'Zoë 東京', null],
    ['NUL alone', '\u0000', NUL_MESSAGE],
    ['NUL inside', 'a\u0000b', NUL_MESSAGE],
    ['lone high surrogate', '\ud800', SURROGATE_MESSAGE],
    ['lone low surrogate', '\udc00', SURROGATE_MESSAGE],
    ['high surrogate at the end', 'ab\ud83d', SURROGATE_MESSAGE],
    ['low before high (reversed pair)', '\ude80\ud83d', SURROGATE_MESSAGE],
    ['U+FFFD is fine', '\ufffd', null],
  ];
  it.each(cases)('%s', (_n, s, want) => expect(textProblem(s)).toBe(want));

  it('inputText keeps z.string() chaining and reports the problem', () => {
    const s = inputText.trim().min(1).max(10);
    expect(s.safeParse(' ok ').data).toBe('ok');
    expect(s.safeParse('a\u0000').error?.issues[0]?.message).toBe(NUL_MESSAGE);
    expect(s.safeParse('\ud800').error?.issues[0]?.message).toBe(SURROGATE_MESSAGE);
    expect(s.safeParse('x'.repeat(11)).success).toBe(false);
  });
});

describe('jsonProblem', () => {
  const cases: [string, unknown, { maxBytes?: number }, { path: (string | number)[]; message: RegExp } | null][] = [
    ['an object', { tenant: 'acme', n: [1, 2, { x: null }] }, {}, null],
    ['a scalar', 'hello', {}, null],
    ['NUL in a nested value', { a: { b: ['x', 'y\u0000'] } }, {}, { path: ['a', 'b', 1], message: /NUL/ }],
    ['lone surrogate in a value', { to: '\ud800' }, {}, { path: ['to'], message: /surrogate/ }],
    ['NUL in a key', { a: { 'k\u0000': 1 } }, {}, { path: ['a'], message: /key.*NUL/ }],
    ['lone surrogate in a key', { '\udfff': 1 }, {}, { path: [], message: /key.*surrogate/ }],
    ['depth at the limit', nest(MAX_JSON_DEPTH), {}, null],
    ['one level too deep', nest(MAX_JSON_DEPTH + 1), {}, { path: Array(MAX_JSON_DEPTH).fill('a'), message: /nested too deeply/ }],
    ['100,000 arrays deep', nest(100_000, 1, 'array'), {}, { path: Array(MAX_JSON_DEPTH).fill(0), message: /nested too deeply/ }],
    ['NaN', { x: Number.NaN }, {}, { path: ['x'], message: /finite/ }],
    ['a BigInt', { x: 10n }, {}, { path: ['x'], message: /BigInt/ }],
    ['a Map', { x: new Map() }, {}, { path: ['x'], message: /Map/ }],
    ['a Date', { x: new Date(0) }, {}, { path: ['x'], message: /Date/ }],
    ['undefined values are dropped like JSON does', { x: undefined, y: 1 }, {}, null],
    ['exactly at the size limit', { s: 'x'.repeat(10) }, { maxBytes: JSON.stringify({ s: 'x'.repeat(10) }).length }, null],
    ['one byte over', { s: 'x'.repeat(11) }, { maxBytes: JSON.stringify({ s: 'x'.repeat(10) }).length }, { path: [], message: /too large: at most 18 bytes/ }],
  ];
  it.each(cases)('%s', (_n, v, limits, want) => {
    const p = jsonProblem(v, limits);
    if (want === null) expect(p).toBeNull();
    else {
      expect(p?.path).toEqual(want.path);
      expect(p?.message).toMatch(want.message);
    }
  });

  it('counts the serialized size in UTF-8 bytes, escapes included', () => {
    const samples: unknown[] = [
      { a: 'plain', b: [1, 2.5, -3e21, true, false, null], c: {} },
      { q: 'quote " backslash \\ newline \n tab \t bell \u0007', é: 'Zoë 東京 🚀' },
      [[], [[]], { x: [{}] }],
      'top-level string',
    ];
    for (const v of samples) {
      const exact = new TextEncoder().encode(JSON.stringify(v)).length;
      expect(jsonProblem(v, { maxBytes: exact })).toBeNull();
      expect(jsonProblem(v, { maxBytes: exact - 1 })?.message).toMatch(/too large/);
    }
  });

  it('stops early on a huge value (does not walk 10 MB past the limit)', () => {
    const big = Array.from({ length: 1_000_000 }, () => 'xxxxxxxxx');
    const t0 = performance.now();
    expect(jsonProblem(big, { maxBytes: 1000 })?.message).toMatch(/too large/);
    expect(performance.now() - t0).toBeLessThan(500);
  });

  it('jsonInput reports at the problem path under the field', () => {
    const r = jsonInput().safeParse({ a: ['ok', '\u0000'] });
    expect(r.error?.issues[0]?.path).toEqual(['a', 1]);
  });
});

describe('inputRecord', () => {
  const r = inputRecord(z.string().min(1), z.number());
  it('accepts storable keys', () => expect(r.safeParse({ acme: 1, 'zoë 🚀': 2 }).success).toBe(true));
  it.each([['k\u0000', /NUL/], ['\udc00', /surrogate/]])('refuses the key %j at the map, without echoing it', (k, msg) => {
    const issue = r.safeParse({ ok: 1, [k]: 2 }).error?.issues[0];
    expect(issue?.path).toEqual([]);
    expect(issue?.message).toMatch(msg);
    expect(issue?.message).not.toContain(k);
  });
});
