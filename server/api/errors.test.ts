// The one error mapping, code by code: every CORE_ERROR_CODES entry has an HTTP status and
// a tRPC code, tRPC's own code → status agrees with the REST status, and the REST body is
// {error, code, fieldErrors?, retryAfterMs?}.
import { describe, it, expect, vi } from 'vitest';
import { TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import { z } from 'zod';
import { CORE_ERROR_CODES, CoreError, issueFieldErrors, type CoreErrorCode } from '../core/errors';
import { coreErrorReply, errorReply, HTTP_STATUS, httpStatusOf, plainTextErrorResponse, trpcErrorOf } from './errors';

const EXPECTED: Record<CoreErrorCode, number> = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PRECONDITION_FAILED: 412,
  PAYLOAD_TOO_LARGE: 413,
  TOO_MANY_REQUESTS: 429,
};

describe('CoreError → HTTP / tRPC', () => {
  it('maps exactly the declared codes', () => {
    expect(Object.keys(HTTP_STATUS).sort()).toEqual([...CORE_ERROR_CODES].sort());
    expect(Object.keys(EXPECTED).sort()).toEqual([...CORE_ERROR_CODES].sort());
  });

  it.each(CORE_ERROR_CODES.map((c) => [c, EXPECTED[c]] as const))('%s → %i, the same through REST and tRPC', (code, status) => {
    const e = new CoreError(code, `a ${code} happened`);
    const reply = coreErrorReply(e);
    expect(reply.status).toBe(status);
    expect(reply.headers['content-type']).toBe('application/json');
    const body = reply.body as Record<string, unknown>;
    expect(body.error).toBe(`a ${code} happened`);
    expect(body.code).toBe(code);
    expect('fieldErrors' in body).toBe(false);
    const t = trpcErrorOf(e);
    expect(t.code).toBe(code);
    expect(t.message).toBe(e.message);
    expect(t.cause).toBe(e);
    expect(getHTTPStatusCodeFromError(t)).toBe(status);
    expect(httpStatusOf(e)).toBe(status);
    expect(httpStatusOf(t)).toBe(status);
    expect(errorReply(e)).toEqual(reply);
  });

  it('carries field errors in the body', () => {
    const e = CoreError.validation([{ path: 'payload', message: 'required' }]);
    const r = coreErrorReply(e);
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ error: 'payload: required', code: 'BAD_REQUEST', fieldErrors: [{ path: 'payload', message: 'required' }] });
  });

  it('429: retryAfterMs in the body and Retry-After in whole seconds (at least 1)', () => {
    const r = coreErrorReply(CoreError.tooManyRequests('slow down', 2_500));
    expect(r.status).toBe(429);
    expect(r.headers['retry-after']).toBe('3');
    expect((r.body as { retryAfterMs: number }).retryAfterMs).toBe(2_500);
    expect(coreErrorReply(CoreError.tooManyRequests('slow down', 0)).headers['retry-after']).toBe('1');
    expect(coreErrorReply(new CoreError('TOO_MANY_REQUESTS', 'no hint')).headers['retry-after']).toBe('1');
  });

  it('extra headers ride along (WWW-Authenticate on 401)', () => {
    const r = coreErrorReply(new CoreError('UNAUTHORIZED', 'token please'), { 'www-authenticate': 'Bearer' });
    expect(r.headers).toEqual({ 'content-type': 'application/json', 'www-authenticate': 'Bearer' });
  });

  it('anything else is a logged 500 that says nothing of the cause', () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    const r = errorReply(new Error('password=hunter2 in the connection string'));
    expect(r.status).toBe(500);
    expect(JSON.stringify(r.body)).not.toContain('hunter2');
    expect(log).toHaveBeenCalledOnce();
    log.mockRestore();
    expect(httpStatusOf(new Error('x'))).toBeNull();
  });

  it('plain-text download errors: status and message, or rethrow', async () => {
    const res = plainTextErrorResponse(new TRPCError({ code: 'FORBIDDEN', message: 'operators only' }));
    expect(res.status).toBe(403);
    expect(await res.text()).toBe('operators only\n');
    expect(plainTextErrorResponse(CoreError.notFound('preview')).status).toBe(404);
    const bug = new TypeError('bug');
    expect(() => plainTextErrorResponse(bug)).toThrow(bug);
  });
});

describe('schema issues → field errors (one function)', () => {
  it('joins paths with dots, numbers included', () => {
    const r = z.object({ tasks: z.array(z.object({ name: z.string() })) }).safeParse({ tasks: [{ name: 1 }] });
    expect(r.success).toBe(false);
    expect(issueFieldErrors(r.error!.issues)).toEqual([{ path: 'tasks.0.name', message: expect.any(String) }]);
  });

  it('reads Standard Schema path segments given as {key}', () => {
    expect(issueFieldErrors([{ path: [{ key: 'a' }, 1, { key: 'b' }], message: 'bad' }, { message: 'top' }])).toEqual([
      { path: 'a.1.b', message: 'bad' },
      { path: '', message: 'top' },
    ]);
  });
});
