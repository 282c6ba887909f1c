import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { formatTraceparent, normalizeTraceparent, parseTraceparent, traceparentProblem, TRACEPARENT_MAX_LENGTH } from './trace-context';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN = '00f067aa0ba902b7';
const VALID = `00-${TRACE}-${SPAN}-01`;

describe('parseTraceparent: valid values', () => {
  it.each([
    { name: 'sampled', value: VALID, flags: 1 },
    { name: 'not sampled', value: `00-${TRACE}-${SPAN}-00`, flags: 0 },
    { name: 'unknown flags kept', value: `00-${TRACE}-${SPAN}-ff`, flags: 255 },
    { name: 'optional whitespace around the field', value: ` \t${VALID} `, flags: 1 },
    { name: 'a later version, four fields', value: `cc-${TRACE}-${SPAN}-01`, flags: 1 },
    { name: 'a later version with a field appended', value: `01-${TRACE}-${SPAN}-01-what-the-future-holds`, flags: 1 },
  ])('$name', ({ value, flags }) => {
    expect(parseTraceparent(value)).toEqual({ traceId: TRACE, spanId: SPAN, flags });
    expect(traceparentProblem(value)).toBeNull();
    expect(normalizeTraceparent(value)).toBe(`00-${TRACE}-${SPAN}-${flags.toString(16).padStart(2, '0')}`);
  });
});

describe('parseTraceparent: hostile and malformed values are refused with a reason', () => {
  it.each([
    { name: 'empty', value: '', problem: /W3C traceparent/ },
    { name: 'not a string', value: 42, problem: /string/ },
    { name: 'null', value: null, problem: /string/ },
    { name: 'an array (repeated header)', value: [VALID, VALID], problem: /string/ },
    { name: 'uppercase hex', value: VALID.toUpperCase(), problem: /lowercase/ },
    { name: 'version ff', value: `ff-${TRACE}-${SPAN}-01`, problem: /version ff/ },
    { name: 'version 00 with a fifth field', value: `${VALID}-extra`, problem: /four fields/ },
    { name: 'all-zero trace id', value: `00-${'0'.repeat(32)}-${SPAN}-01`, problem: /trace id/ },
    { name: 'all-zero parent id', value: `00-${TRACE}-${'0'.repeat(16)}-01`, problem: /parent id/ },
    { name: 'short trace id', value: `00-${TRACE.slice(1)}-${SPAN}-01`, problem: /W3C/ },
    { name: 'long parent id', value: `00-${TRACE}-${SPAN}a-01`, problem: /W3C/ },
    { name: 'non-hex', value: `00-${TRACE.replace('4', 'g')}-${SPAN}-01`, problem: /W3C/ },
    { name: 'later version glued to a fifth field', value: `01-${TRACE}-${SPAN}-01x`, problem: /W3C/ },
    { name: 'NUL inside', value: `00-${TRACE}-${SPAN}-0\u00001`, problem: /W3C/ },
    { name: 'newline injection', value: `${VALID}\r\nx-evil: 1`, problem: /four fields|W3C/ },
    { name: 'SQL', value: `00-${TRACE}-${SPAN}-01'; DROP TABLE executions;--`, problem: /four fields|W3C/ },
    { name: 'huge', value: `01-${TRACE}-${SPAN}-01-${'a'.repeat(TRACEPARENT_MAX_LENGTH)}`, problem: /at most 512/ },
  ])('$name', ({ value, problem }) => {
    expect(parseTraceparent(value)).toBeNull();
    expect(normalizeTraceparent(value)).toBeNull();
    expect(traceparentProblem(value)).toMatch(problem);
  });
});

describe('formatTraceparent', () => {
  it('writes version 00 with two hex digits of flags', () => {
    expect(formatTraceparent({ traceId: TRACE, spanId: SPAN, flags: 1 })).toBe(VALID);
    expect(formatTraceparent({ traceId: TRACE, spanId: SPAN, flags: 0x1a })).toBe(`00-${TRACE}-${SPAN}-1a`);
  });

  it('round-trips every valid id pair and never throws on any string', () => {
    const hex = (n: number) => fc.stringMatching(new RegExp(`^[0-9a-f]{${n}}$`));
    fc.assert(
      fc.property(hex(32), hex(16), fc.integer({ min: 0, max: 255 }), (traceId, spanId, flags) => {
        const s = formatTraceparent({ traceId, spanId, flags });
        const zero = /^0+$/.test(traceId) || /^0+$/.test(spanId);
        expect(parseTraceparent(s)).toEqual(zero ? null : { traceId, spanId, flags });
      }),
    );
    fc.assert(
      fc.property(fc.string({ maxLength: 600 }), (s) => {
        const p = parseTraceparent(s);
        expect(p === null || normalizeTraceparent(s)!.length === 55).toBe(true);
      }),
    );
  });
});
