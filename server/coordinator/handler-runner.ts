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

/**
 * An execution's abort (timeout, shutdown, an operator's cancel). The AbortController the
 * handler sees as `ctx.signal` is made only when the handler reads it — already aborted,
 * with the reason, if the abort came first — since most handlers never do, and one
 * controller per execution (its signal, an event listener) was ~5 µs of the ~23 µs this
 * process spent per no-op job in bench:peers' W1 at 532 slots (2026-12-07 CPU profile).
 */
export class ExecutionAbort {
  private controller: AbortController | null = null;
  private abortedWith: { reason: unknown } | null = null;
  private onAbort: (() => void) | null = null;

  get aborted(): boolean {
    return this.abortedWith !== null;
  }

  get reason(): unknown {
    return this.abortedWith?.reason;
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.abortedWith) this.controller.abort(this.abortedWith.reason);
    }
    return this.controller.signal;
  }

  /** The first abort wins; later ones change nothing. */
  abort(reason: unknown): void {
    if (this.abortedWith) return;
    this.abortedWith = { reason };
    this.controller?.abort(reason);
    const f = this.onAbort;
    this.onAbort = null;
    f?.();
  }

  /** runHandler's one listener: called once, at once if already aborted. */
  whenAborted(f: () => void): void {
    if (this.abortedWith) f();
    else this.onAbort = f;
  }
}

export function runHandler(
  handler: Handler,
  payload: unknown,
  ctx: Omit<HandlerContext, 'signal'>,
  timeoutMs: number,
  abort: ExecutionAbort,
): Promise<RunResult> {
  const t0 = performance.now();
  // One promise settled by whichever comes first — the handler's return, its throw, the
  // timeout, an abort — instead of a race of three (fewer allocations per execution).
  return new Promise<RunResult>((resolve) => {
    let settled = false;
    const settle = (r: RunResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(r);
    };
    const timer = setTimeout(() => abort.abort(new TimeoutError(`timed out after ${timeoutMs} ms`)), timeoutMs);
    abort.whenAborted(() => {
      const reason = abort.reason;
      settle({ ok: false, ms: performance.now() - t0, timedOut: reason instanceof TimeoutError, error: asError(reason ?? new Error('aborted')) });
    });
    const full: HandlerContext = {
      ...ctx,
      get signal() {
        return abort.signal;
      },
    };
    // A microtask later, as before: a handler that throws synchronously fails like one that
    // rejects, and a batch's rows are all started before the first handler runs.
    Promise.resolve()
      .then(() => handler(payload, full))
      .then(
        () => settle({ ok: true, ms: performance.now() - t0 }),
        (e: unknown) => settle({ ok: false, ms: performance.now() - t0, timedOut: false, error: asError(e) }),
      );
  });
}
