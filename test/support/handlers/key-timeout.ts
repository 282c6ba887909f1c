// A handler that sleeps payload.ms and records, in test_runs, when it started and when it
// ended: at its sleep's end (finished) or when the coordinator aborted it (its timeout).
// `seq` says which: 1 = aborted, 0 = ran to the end.
import pg from 'pg';
import type { HandlerContext } from '../../../server/coordinator/handler-runner';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 4 });

const record = (ctx: HandlerContext, aborted: boolean, started: number) =>
  pool.query(
    `INSERT INTO test_runs (execution_id, attempt, task, groups, stream_key, seq, started_ms, finished_ms, pid) VALUES ($1, $2, 'keytimeout', $3, NULL, $4, $5, $6, $7)`,
    [ctx.executionId, ctx.attempt, JSON.stringify(ctx.groups), aborted ? 1 : 0, started, Date.now(), process.pid],
  );

export default {
  keytimeout: (p: { ms: number }, ctx: HandlerContext) =>
    new Promise<void>((resolve, reject) => {
      const started = Date.now();
      const timer = setTimeout(() => void record(ctx, false, started).then(() => resolve(), reject), p.ms);
      ctx.signal.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          void record(ctx, true, started).finally(() => reject(ctx.signal.reason as Error));
        },
        { once: true },
      );
    }),
};
