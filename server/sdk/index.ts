// The TypeScript SDK for producers.
//
//   import { createClient } from 'sluice/sdk';          // over HTTP, with an API token
//   const sluice = createClient({ url: 'http://127.0.0.1:3000', token: process.env.SLUICE_TOKEN! });
//   await sluice.enqueue('send-email', { payload: { tenant: 'acme', to: 'a@b.c' } });
//   await sluice.enqueueMany('send-email', [{ payload: … }, { payload: …, groups: { tenant: 'acme' } }]);
//
// Errors are typed: SluiceValidationError (400, with fieldErrors), SluiceBackpressureError
// (429, with retryAfterMs), SluiceNotFoundError (404), SluiceAuthError (401/403), and
// SluiceApiError for anything else. Code that shares the database can skip HTTP with
// createDbClient(pool) from 'server/sdk/db' — same inputs, same results.

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
}

export interface FieldError {
  path: string;
  message: string;
}

export class SluiceApiError extends Error {
  override name = 'SluiceApiError';
  constructor(
    message: string,
    readonly status: number,
    readonly code: string,
    readonly body: unknown,
  ) {
    super(message);
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

export interface ClientOptions {
  /** The control plane's base URL, e.g. http://127.0.0.1:3000 */
  url: string;
  /** An API token with the producer role (slc_…). */
  token: string;
  /** A fetch implementation (defaults to the global one). */
  fetch?: typeof fetch;
}

export interface SluiceClient {
  enqueue(task: string, input: EnqueueInput): Promise<EnqueuedExecution & { result: EnqueueResult }>;
  enqueueMany(task: string, inputs: EnqueueInput[]): Promise<EnqueueResult>;
  getExecution(id: number): Promise<Record<string, unknown>>;
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

  async function post(task: string, body: unknown): Promise<EnqueueResult> {
    const res = await doFetch(`${base}/api/v1/tasks/${encodeURIComponent(task)}/executions`, { method: 'POST', headers, body: JSON.stringify(body) });
    if (res.status !== 202) return failure(res);
    return (await res.json()) as EnqueueResult;
  }

  return {
    async enqueue(task, input) {
      const result = await post(task, input);
      return { ...result.executions[0]!, result };
    },
    async enqueueMany(task, inputs) {
      if (inputs.length === 0) return { executions: [], shed: 0, spilled: 0, throttledMs: 0 };
      return post(task, { executions: inputs });
    },
    async getExecution(id) {
      const res = await doFetch(`${base}/api/v1/executions/${encodeURIComponent(String(id))}`, { headers });
      if (res.status !== 200) return failure(res);
      return (await res.json()) as Record<string, unknown>;
    },
  };
}
