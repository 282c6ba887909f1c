import { describe, expect, it } from 'vitest';
import { CancelAbort, ExecutionAbort, runHandler, TimeoutError, type Handler, type HandlerContext } from './handler-runner';

const ctx = { executionId: 7, attempt: 1, idempotencyKey: 't:7', groups: { tenant: 'acme' }, streamKey: null, partition: 2 };

describe('ExecutionAbort', () => {
  it('makes no signal until one is read; a signal read after the abort is already aborted with its reason', () => {
    const a = new ExecutionAbort();
    expect(a.aborted).toBe(false);
    const why = new CancelAbort('canceled by an operator');
    a.abort(why);
    a.abort(new Error('second')); // the first abort wins
    expect(a.aborted).toBe(true);
    expect(a.reason).toBe(why);
    expect(a.signal.aborted).toBe(true);
    expect(a.signal.reason).toBe(why);
  });

  it('a signal read before the abort fires its listeners when it comes', () => {
    const a = new ExecutionAbort();
    const seen: unknown[] = [];
    a.signal.addEventListener('abort', () => seen.push(a.signal.reason));
    a.abort('stop');
    expect(seen).toEqual(['stop']);
  });
});

describe('runHandler', () => {
  it('passes the context; a handler that never reads ctx.signal succeeds with its run time', async () => {
    let got: Omit<HandlerContext, 'signal'> | null = null;
    const h: Handler = (_p, c) => {
      got = { executionId: c.executionId, attempt: c.attempt, idempotencyKey: c.idempotencyKey, groups: c.groups, streamKey: c.streamKey, partition: c.partition };
    };
    const r = await runHandler(h, { x: 1 }, ctx, 1000, new ExecutionAbort());
    expect(r.ok).toBe(true);
    expect(r.ms).toBeGreaterThanOrEqual(0);
    expect(got).toEqual(ctx);
  });

  it('a synchronous throw and a rejection both fail with the error', async () => {
    for (const h of [
      (() => {
        throw new TypeError('bad payload');
      }) as Handler,
      (async () => {
        throw new TypeError('bad payload');
      }) as Handler,
    ]) {
      const r = await runHandler(h, null, ctx, 1000, new ExecutionAbort());
      expect(r).toMatchObject({ ok: false, timedOut: false, error: { name: 'TypeError', message: 'bad payload' } });
    }
  });

  it('a handler that ignores its signal times out at the timeout, and its signal says why', async () => {
    let signal: AbortSignal | null = null;
    const r = await runHandler((_p, c) => ((signal = c.signal), new Promise(() => {})), null, ctx, 30, new ExecutionAbort());
    expect(r).toMatchObject({ ok: false, timedOut: true, error: { name: 'TimeoutError', message: 'timed out after 30 ms' } });
    expect(r.ms).toBeGreaterThanOrEqual(25);
    expect(signal!.aborted).toBe(true);
    expect(signal!.reason).toBeInstanceOf(TimeoutError);
  });

  it('an abort (cancel) ends the run at once, whether the handler read its signal before or after', async () => {
    const early = new ExecutionAbort();
    const lateRead: boolean[] = [];
    const p = runHandler(
      async (_p, c) => {
        await new Promise((r) => setTimeout(r, 20));
        lateRead.push(c.signal.aborted); // read after the abort: made aborted
        await new Promise(() => {});
      },
      null,
      ctx,
      10_000,
      early,
    );
    setTimeout(() => early.abort(new CancelAbort('canceled by an operator')), 5);
    const r = await p;
    expect(r).toMatchObject({ ok: false, timedOut: false, error: { name: 'CancelAbort' } });
    expect(r.ms).toBeLessThan(5000);
    await new Promise((res) => setTimeout(res, 30));
    expect(lateRead).toEqual([true]);
  });

  it('an abort after the handler returned changes nothing', async () => {
    const a = new ExecutionAbort();
    const r = await runHandler(() => 'done', null, ctx, 1000, a);
    a.abort(new CancelAbort('late'));
    expect(r.ok).toBe(true);
  });
});
