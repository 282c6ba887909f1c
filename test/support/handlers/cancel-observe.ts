// Test handlers for canceling running executions: each run writes `start`, then either
// `done` or — when its AbortSignal fires — `abort` with the signal's reason, to
// test_cancel_events, so a test can see that the handler observed the abort and when
// each run started relative to it. payload.sleepMs: how long a run takes.
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import type { HandlerContext } from '../../../server/coordinator/handler-runner';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 4 });

async function event(ctx: HandlerContext, kind: string, reason: string | null = null): Promise<void> {
  await pool.query('INSERT INTO test_cancel_events (execution_id, kind, reason, at_ms) VALUES ($1, $2, $3, $4)', [ctx.executionId, kind, reason, Date.now()]);
}

async function run(p: { sleepMs?: number }, ctx: HandlerContext): Promise<void> {
  await event(ctx, 'start');
  try {
    await sleep(p.sleepMs ?? 100, undefined, { signal: ctx.signal });
  } catch (e) {
    if (ctx.signal.aborted) {
      const r: unknown = ctx.signal.reason;
      await event(ctx, 'abort', r instanceof Error ? r.name : String(r));
    }
    throw e;
  }
  await event(ctx, 'done');
}

export default {
  slow: (p: unknown, ctx: HandlerContext) => run(p as { sleepMs?: number }, ctx),
};
