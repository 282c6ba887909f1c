// A handler that always fails, recording each attempt with its groups in test_runs: the
// per-key retry policies decide how many attempts each execution gets.
import pg from 'pg';
import type { HandlerContext } from '../../../server/coordinator/handler-runner';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 4 });

export default {
  keyretry: async (_p: unknown, ctx: HandlerContext) => {
    const at = Date.now();
    await pool.query(
      `INSERT INTO test_runs (execution_id, attempt, task, groups, stream_key, seq, started_ms, finished_ms, pid) VALUES ($1, $2, 'keyretry', $3, NULL, 0, $4, $4, $5)`,
      [ctx.executionId, ctx.attempt, JSON.stringify(ctx.groups), at, process.pid],
    );
    throw new Error('the target always fails (test handler)');
  },
};
