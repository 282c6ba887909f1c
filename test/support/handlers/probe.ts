// A handler for the lost-probe test: the first attempt of an execution hangs (until its
// timeout or abort) after recording that it started; later attempts succeed at once.
import pg from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
import type { HandlerContext } from '../../../server/coordinator/handler-runner';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 2 });

export default {
  probe: async (_p: unknown, ctx: HandlerContext) => {
    const at = Date.now();
    await pool.query(
      `INSERT INTO test_runs (execution_id, attempt, task, groups, stream_key, seq, started_ms, finished_ms, pid) VALUES ($1, $2, 'probe', '{}', NULL, 0, $3, $3, $4)`,
      [ctx.executionId, ctx.attempt, at, process.pid],
    );
    if (ctx.attempt === 1) await sleep(600_000, undefined, { signal: ctx.signal });
  },
};
