// Runs one handler call with the task's timeout: the handler gets an AbortSignal that
// fires on timeout, shutdown or an operator's cancel; a timeout (or cancel) counts at once
// even if the handler ignores the signal (we stop waiting for it). Returns what happened,
// never throws.
export interface HandlerContext {
  executionId: number;
  /** 1 for the first run. */
  attempt: number;
  idempotencyKey: string;
  groups: Record<string, string>;
  streamKey: string | null;
  partition: number;
  signal: AbortSignal;
}

export type Handler = (payload: unknown, ctx: HandlerContext) => unknown | Promise<unknown>;
export type HandlerMap = Record<string, Handler>;

export type RunResult =
  | { ok: true; ms: number }
  | { ok: false; ms: number; error: { name: string; message: string; stack?: string }; timedOut: boolean };

export class TimeoutError extends Error {
  override name = 'TimeoutError';
}

export class ShutdownAbort extends Error {
  override name = 'ShutdownAbort';
}

/** An operator canceled the execution (services/execution-actions.ts). */
export class CancelAbort extends Error {
  override name = 'CancelAbort';
}

function asError(e: unknown): { name: string; message: string; stack?: string } {
  if (e instanceof Error) return { name: e.name || 'Error', message: e.message, ...(e.stack ? { stack: e.stack } : {}) };
  return { name: 'Error', message: typeof e === 'string' ? e : JSON.stringify(e) ?? String(e) };
}

export async function runHandler(
  handler: Handler,
  payload: unknown,
  ctx: Omit<HandlerContext, 'signal'>,
  timeoutMs: number,
  abort: AbortController,
): Promise<RunResult> {
  const t0 = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => {
      abort.abort(new TimeoutError(`timed out after ${timeoutMs} ms`));
      resolve('timeout');
    }, timeoutMs);
  });
  const aborted = new Promise<'aborted'>((resolve) => {
    if (abort.signal.aborted) resolve('aborted');
    else abort.signal.addEventListener('abort', () => resolve('aborted'), { once: true });
  });
  try {
    const run = Promise.resolve().then(() => handler(payload, { ...ctx, signal: abort.signal }));
    const r = await Promise.race([run.then(() => 'done' as const), timeout, aborted]);
    const ms = performance.now() - t0;
    if (r === 'done') return { ok: true, ms };
    const reason = abort.signal.reason;
    const timedOut = reason instanceof TimeoutError;
    return { ok: false, ms, timedOut, error: asError(reason ?? new Error('aborted')) };
  } catch (e) {
    return { ok: false, ms: performance.now() - t0, timedOut: false, error: asError(e) };
  } finally {
    clearTimeout(timer);
  }
}
