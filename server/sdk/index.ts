// The TypeScript SDK for producers: the `sluice/sdk` package entry (docs/handlers.md §
// "Enqueue from your code"). Built by `npm run build:sdk` into dist/ (ESM + .d.ts); it
// must import nothing but server/core/trace-context.ts (pure) — no pg, Prisma, Next or
// server module — which test/integration/sdk-package.test.ts checks on the built output.
//
//   import { createClient } from 'sluice/sdk';          // over HTTP, with an API token
//   const sluice = createClient({ url: 'http://127.0.0.1:3000', token: process.env.SLUICE_TOKEN! });
//   await sluice.enqueue('send-email', { payload: { tenant: 'acme', to: 'a@b.c' } });
//   await sluice.enqueueMany('send-email', [{ payload: … }, { payload: …, groups: { tenant: 'acme' } }]);
//   await sluice.enqueue('send-email', { payload }, { traceparent });   // join the caller's trace
//   await sluice.enqueue('send-email', { payload, priority: 5 });       // ahead of priority 0 (with aging)
//
// Errors are typed, all SluiceApiError with a `code`: SluiceValidationError (400,
// BAD_REQUEST, with fieldErrors), SluiceTooLargeError (413, PAYLOAD_TOO_LARGE),
// SluiceBackpressureError (429, TOO_MANY_REQUESTS, with retryAfterMs), SluiceNotFoundError
// (404), SluiceAuthError (401/403), SluiceNetworkError (no HTTP reply, code NETWORK) and
// SluiceApiError for anything else. Code that shares the database can skip HTTP with
// createDbClient(pool) from 'server/sdk/db' (inside this repository only: it needs the
// server) — same inputs, same results.
import { normalizeTraceparent, traceparentProblem } from '../core/trace-context.js';

export interface EnqueueInput {
  payload: unknown;
  /** Explicit group keys, e.g. { tenant: 'acme' }; a group without one reads its keyPath from the payload. */
  groups?: Record<string, string>;
  streamKey?: string;
  idempotencyKey?: string;
  /** Run no earlier than this many ms from now. */
  delayMs?: number;
  /** Explicit key for hash routing (else the task's routing.keyPath into the payload). */
  routingKey?: string;
  /** 0 (lowest) to 1000, higher claimed first; a waiting execution gains one level per the
   *  task's priority.agingMs (default 60 s), so low priorities are never starved. Absent:
   *  the task's priority.default (0 unless configured). */
  priority?: number;
}

export interface EnqueuedExecution {
  /** null when the shed policy dropped it. */
  id: number | null;
  partition: number;
  state: 'queued' | 'blocked' | 'spilled' | 'shed' | 'running' | 'succeeded' | 'dead' | 'canceled';
  deduplicated: boolean;
}

export interface EnqueueResult {
  executions: EnqueuedExecution[];
  shed: number;
  spilled: number;
  throttledMs: number;
  /** Staged backpressure: a partition is in its throttle stage; wait this long before the next call. */
  retryAfterMs?: number;
}

export interface FieldError {
  path: string;
  message: string;
}

/** The codes a SluiceApiError carries (the server's `code`, or NETWORK when no reply came). */
export type SluiceErrorCode =
  | 'BAD_REQUEST'
  | 'PAYLOAD_TOO_LARGE'
  | 'TOO_MANY_REQUESTS'
  | 'NOT_FOUND'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'NETWORK'
  | (string & {});

export class SluiceApiError extends Error {
  override name = 'SluiceApiError';
  constructor(
    message: string,
    /** HTTP status; 0 when no reply came (SluiceNetworkError) */
    readonly status: number,
    readonly code: SluiceErrorCode,
    readonly body: unknown,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
export class SluiceValidationError extends SluiceApiError {
  override name = 'SluiceValidationError';
  constructor(message: string, readonly fieldErrors: FieldError[], body: unknown) {
    super(message, 400, 'BAD_REQUEST', body);
  }
}
export class SluiceBackpressureError extends SluiceApiError {
  override name = 'SluiceBackpressureError';
  constructor(message: string, readonly retryAfterMs: number, body: unknown) {
    super(message, 429, 'TOO_MANY_REQUESTS', body);
  }
}
/** A payload over the server's SLUICE_MAX_PAYLOAD_BYTES, or a batch over its size limit (413). */
export class SluiceTooLargeError extends SluiceApiError {
  override name = 'SluiceTooLargeError';
  constructor(message: string, readonly fieldErrors: FieldError[], body: unknown) {
    super(message, 413, 'PAYLOAD_TOO_LARGE', body);
  }
}
export class SluiceNotFoundError extends SluiceApiError {
  override name = 'SluiceNotFoundError';
}
export class SluiceAuthError extends SluiceApiError {
  override name = 'SluiceAuthError';
}
/** The request got no HTTP reply (connection refused, DNS, reset, aborted): nothing is
 *  known about whether it was enqueued — retry with the same idempotencyKey. */
export class SluiceNetworkError extends SluiceApiError {
  override name = 'SluiceNetworkError';
  constructor(message: string, cause: unknown) {
    super(message, 0, 'NETWORK', null, { cause });
  }
}

export interface ClientOptions {
  /** The control plane's base URL, e.g. http://127.0.0.1:3000 */
  url: string;
  /** An API token with the producer role (slc_…). */
  token: string;
  /** A fetch implementation (defaults to the global one). */
  fetch?: typeof fetch;
  /** The trace context of each call, when the call gives none: return the W3C traceparent
   *  of the caller's current span (with OpenTelemetry: propagation.inject into a carrier
   *  and return carrier.traceparent), or undefined. docs/tracing.md. */
  traceparent?: () => string | undefined;
}

export interface EnqueueCallOptions {
  /** W3C traceparent (00-<trace id>-<parent id>-<flags>) the executions' attempts are traced
   *  under. An invalid value is refused before any request (SluiceValidationError naming
   *  `traceparent`). */
  traceparent?: string;
}

export interface SluiceClient {
  enqueue(task: string, input: EnqueueInput, options?: EnqueueCallOptions): Promise<EnqueuedExecution & { result: EnqueueResult }>;
  enqueueMany(task: string, inputs: EnqueueInput[], options?: EnqueueCallOptions): Promise<EnqueueResult>;
  getExecution(id: number): Promise<Record<string, unknown>>;
}

/** The traceparent header to send, or none; a value that is not one is the caller's bug. */
export function traceparentHeader(value: string | undefined): Record<string, string> {
  if (value === undefined) return {};
  const problem = traceparentProblem(value);
  if (problem) throw new SluiceValidationError(`traceparent: ${problem}`, [{ path: 'traceparent', message: problem }], null);
  return { traceparent: normalizeTraceparent(value)! };
}

async function failure(res: Response): Promise<never> {
  let body: { error?: string; code?: string; fieldErrors?: FieldError[]; retryAfterMs?: number } = {};
  try {
    body = await res.json();
  } catch {
    // not JSON: keep the status
  }
  const message = body.error ?? `HTTP ${res.status}`;
  if (res.status === 400) throw new SluiceValidationError(message, body.fieldErrors ?? [], body);
  if (res.status === 413) throw new SluiceTooLargeError(message, body.fieldErrors ?? [], body);
  if (res.status === 429) {
    const header = Number(res.headers.get('retry-after'));
    throw new SluiceBackpressureError(message, body.retryAfterMs ?? (Number.isFinite(header) ? header * 1000 : 1000), body);
  }
  if (res.status === 404) throw new SluiceNotFoundError(message, 404, body.code ?? 'NOT_FOUND', body);
  if (res.status === 401 || res.status === 403) throw new SluiceAuthError(message, res.status, body.code ?? 'UNAUTHORIZED', body);
  throw new SluiceApiError(message, res.status, body.code ?? 'ERROR', body);
}

export function createClient(opts: ClientOptions): SluiceClient {
  const base = opts.url.replace(/\/+$/, '');
  const doFetch = opts.fetch ?? fetch;
  const headers = { authorization: `Bearer ${opts.token}`, 'content-type': 'application/json', accept: 'application/json' };

  async function send(url: string, init: RequestInit): Promise<Response> {
    try {
      return await doFetch(url, init);
    } catch (e) {
      throw new SluiceNetworkError(`${init.method ?? 'GET'} ${url} got no reply: ${(e as Error)?.message ?? String(e)}`, e);
    }
  }

  async function post(task: string, body: unknown, options: EnqueueCallOptions | undefined): Promise<EnqueueResult> {
    const trace = traceparentHeader(options?.traceparent ?? opts.traceparent?.());
    const res = await send(`${base}/api/v1/tasks/${encodeURIComponent(task)}/executions`, { method: 'POST', headers: { ...headers, ...trace }, body: JSON.stringify(body) });
    if (res.status !== 202) return failure(res);
    return (await res.json()) as EnqueueResult;
  }

  return {
    async enqueue(task, input, options) {
      const result = await post(task, input, options);
      return { ...result.executions[0]!, result };
    },
    async enqueueMany(task, inputs, options) {
      if (inputs.length === 0) return { executions: [], shed: 0, spilled: 0, throttledMs: 0 };
      return post(task, { executions: inputs }, options);
    },
    async getExecution(id) {
      const res = await send(`${base}/api/v1/executions/${encodeURIComponent(String(id))}`, { headers });
      if (res.status !== 200) return failure(res);
      return (await res.json()) as Record<string, unknown>;
    },
  };
}
