// A handler whose target can be switched off and on from the test: each call records its
// attempt in test_runs (failed ones too, so a test counts every attempt made) and fails
// while test_breaker_switch says the target is down.
import pg from 'pg';
import type { HandlerContext } from '../../../server/coordinator/handler-runner';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 4 });

async function run(task: string, ctx: HandlerContext): Promise<void> {
  const started = Date.now();
  const r = await pool.query<{ down: boolean }>(`SELECT down FROM test_breaker_switch WHERE task = $1`, [task]);
  const down = r.rows[0]?.down ?? false;
  await pool.query(
    `INSERT INTO test_runs (execution_id, attempt, task, groups, stream_key, seq, started_ms, finished_ms, pid) VALUES ($1, $2, $3, '{}', NULL, $4, $5, $6, $7)`,
    [ctx.executionId, ctx.attempt, task, down ? 0 : 1, started, Date.now(), process.pid],
  );
  if (down) throw new Error('target unavailable (switched off by the test)');
}

export default {
  brk: (_p: unknown, ctx: HandlerContext) => run('brk', ctx),
};
