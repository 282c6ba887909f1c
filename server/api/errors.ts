// The one place a CoreError (server/core/errors.ts) meets the wire. Services and presenters
// throw CoreError, which knows nothing of HTTP; here each CORE_ERROR_CODES entry gets its
// HTTP status (REST routes, the session download routes) and its tRPC code (the tRPC
// formatter in server/api/trpc.ts). tRPC maps its codes to HTTP statuses itself, and
// server/api/errors.test.ts checks that both ways give every code the same status.
//
// REST error body: {error, code, fieldErrors?, retryAfterMs?} (+ Retry-After with 429).
// Anything that is not a CoreError is logged and answered 500 with a generic message, so
// internals never leak.
import { TRPCError } from '@trpc/server';
import type { TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import { CoreError, isCoreError, type CoreErrorCode } from '../core/errors';

/** A REST reply without HTTP: what a handler returns and restRoute writes. */
export interface RestReply {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

export const JSON_HEADERS: Readonly<Record<string, string>> = { 'content-type': 'application/json' };

/** A JSON reply (200 unless said otherwise). */
export function jsonReply(body: unknown, status = 200): RestReply {
  return { status, headers: { ...JSON_HEADERS }, body };
}

/** HTTP status of each CoreError code. */
export const HTTP_STATUS: Readonly<Record<CoreErrorCode, number>> = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PRECONDITION_FAILED: 412,
  PAYLOAD_TOO_LARGE: 413,
  TOO_MANY_REQUESTS: 429,
};

/** tRPC code of each CoreError code (the names were chosen to be tRPC's). */
const TRPC_CODE: Readonly<Record<CoreErrorCode, TRPC_ERROR_CODE_KEY>> = {
  BAD_REQUEST: 'BAD_REQUEST',
  UNAUTHORIZED: 'UNAUTHORIZED',
  FORBIDDEN: 'FORBIDDEN',
  NOT_FOUND: 'NOT_FOUND',
  CONFLICT: 'CONFLICT',
  PRECONDITION_FAILED: 'PRECONDITION_FAILED',
  PAYLOAD_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  TOO_MANY_REQUESTS: 'TOO_MANY_REQUESTS',
};

/** Retry-After in whole seconds (at least 1) for a wait in milliseconds. */
function retryAfterSeconds(ms: number): string {
  return String(Math.max(1, Math.ceil(ms / 1000)));
}

/** A CoreError as a REST reply: its status, {error, code, fieldErrors?, retryAfterMs?}. */
export function coreErrorReply(e: CoreError, headers: Record<string, string> = {}): RestReply {
  const out: Record<string, string> = { ...JSON_HEADERS, ...headers };
  const body: Record<string, unknown> = { error: e.message, code: e.code };
  if (e.fieldErrors) body.fieldErrors = e.fieldErrors;
  if (e.code === 'TOO_MANY_REQUESTS') {
    const ms = e.retryAfterMs ?? 1000;
    out['retry-after'] = retryAfterSeconds(ms);
    body.retryAfterMs = ms;
  }
  return { status: HTTP_STATUS[e.code], headers: out, body };
}

const INTERNAL_ERROR_BODY = { error: 'internal error', code: 'INTERNAL' } as const;

/** Any thrown value as a REST reply: a CoreError by its code, anything else a logged 500. */
export function errorReply(e: unknown, where = 'rest'): RestReply {
  if (isCoreError(e)) return coreErrorReply(e);
  console.error(`[${where}]`, e);
  return { status: 500, headers: { ...JSON_HEADERS }, body: INTERNAL_ERROR_BODY };
}

export function replyToResponse(r: RestReply): Response {
  return new Response(JSON.stringify(r.body), { status: r.status, headers: r.headers });
}

/** A CoreError as a Response, e.g. `errorResponse(new CoreError('UNAUTHORIZED', …), {'www-authenticate': 'Bearer'})`. */
export function errorResponse(e: CoreError, headers: Record<string, string> = {}): Response {
  return replyToResponse(coreErrorReply(e, headers));
}

/** The HTTP status of an error from a tRPC caller (session routes that call procedures
 *  server-side) or a service it reached: null when it is neither (a bug: rethrow it). */
export function httpStatusOf(e: unknown): number | null {
  if (e instanceof TRPCError) return getHTTPStatusCodeFromError(e);
  if (isCoreError(e)) return HTTP_STATUS[e.code];
  return null;
}

/** For a download route (plain text on failure): the error's message and status, or rethrow. */
export function plainTextErrorResponse(e: unknown): Response {
  const status = httpStatusOf(e);
  if (status === null) throw e;
  return new Response(`${(e as Error).message}\n`, { status, headers: { 'content-type': 'text/plain; charset=utf-8' } });
}

/** A CoreError (or a cross-copy look-alike) as the TRPCError tRPC answers with. */
export function trpcErrorOf(e: CoreError): TRPCError {
  return new TRPCError({ code: TRPC_CODE[e.code], message: e.message, cause: e });
}
