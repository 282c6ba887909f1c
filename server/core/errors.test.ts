import { describe, expect, it } from 'vitest';
import { CORE_ERROR_CODES, CoreError, isCoreError } from './errors';

describe('CoreError', () => {
  it.each(CORE_ERROR_CODES)('carries code %s, a message and is an Error', (code) => {
    const e = new CoreError(code, 'nope');
    expect(e).toBeInstanceOf(Error);
    expect(e.code).toBe(code);
    expect(e.message).toBe('nope');
    expect(e.name).toBe('CoreError');
    expect(e.fieldErrors).toBeUndefined();
    expect(isCoreError(e)).toBe(true);
  });

  it.each([
    { retryAfterMs: 0, expected: 0 },
    { retryAfterMs: 999.2, expected: 1000 },
    { retryAfterMs: 1500, expected: 1500 },
  ])('keeps retryAfterMs $retryAfterMs as $expected', ({ retryAfterMs, expected }) => {
    expect(CoreError.tooManyRequests('slow down', retryAfterMs).retryAfterMs).toBe(expected);
  });

  it.each([-1, Number.NaN, Number.POSITIVE_INFINITY])('refuses retryAfterMs %s', (retryAfterMs) => {
    expect(() => new CoreError('TOO_MANY_REQUESTS', 'x', { retryAfterMs })).toThrow(RangeError);
  });

  it.each([
    { errors: [], message: 'invalid input' },
    { errors: [{ path: 'name', message: 'required' }], message: 'name: required' },
    { errors: [{ path: '', message: 'bad' }], message: 'bad' },
    {
      errors: [
        { path: 'a', message: '1' },
        { path: 'b', message: '2' },
        { path: 'c', message: '3' },
        { path: 'd', message: '4' },
        { path: 'e', message: '5' },
      ],
      message: 'a: 1; b: 2; c: 3 (and 2 more)',
    },
  ])('validation() summarises $errors.length field errors', ({ errors, message }) => {
    const e = CoreError.validation(errors);
    expect(e.code).toBe('BAD_REQUEST');
    expect(e.message).toBe(message);
    expect(e.fieldErrors).toEqual(errors);
  });

  it('keeps the cause', () => {
    const cause = new Error('root');
    expect(new CoreError('CONFLICT', 'x', { cause }).cause).toBe(cause);
  });

  it.each([
    { value: new Error('x'), expected: false },
    { value: { name: 'CoreError', code: 'NOT_FOUND', message: 'x' }, expected: true },
    { value: { name: 'CoreError', code: 'TEAPOT', message: 'x' }, expected: false },
    { value: null, expected: false },
    { value: 'CoreError', expected: false },
  ])('isCoreError($value) = $expected', ({ value, expected }) => {
    expect(isCoreError(value)).toBe(expected);
  });
});
