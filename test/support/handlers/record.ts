// Test handlers: each run records (execution, attempt, groups, stream, seq, start, end,
// pid) in test_runs, so tests can check overlaps per key and order per stream from the
// database. The payload steers behaviour: sleepMs, failTimes (fail the first N attempts),
// hangMs (ignore the abort signal), seq (position in its stream).
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import type { HandlerContext } from '../../../server/coordinator/handler-runner';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 4 });

interface Payload {
  sleepMs?: number;
  failTimes?: number;
  hangMs?: number;
  seq?: number;
}

// Records are written in small batches (one multi-row insert every few ms) and each
// handler awaits its batch's commit before returning, so a run that completed is always
// recorded, at a fraction of the commits one insert per run would cost.
type Row = unknown[];
let batch: { rows: Row[]; done: Promise<void>; resolve: () => void; reject: (e: unknown) => void } | null = null;
function record(row: Row): Promise<void> {
  if (!batch) {
    let resolve!: () => void;
    let reject!: (e: unknown) => void;
    const done = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
    const b = { rows: [] as Row[], done, resolve, reject };
    batch = b;
    setTimeout(() => {
      batch = null;
      const cols = 9;
      const values = b.rows.map((_, i) => `(${Array.from({ length: cols }, (_, j) => `$${i * cols + j + 1}`).join(',')})`).join(',');
      pool
        .query(
          `INSERT INTO test_runs (execution_id, attempt, task, groups, stream_key, seq, started_ms, finished_ms, pid) VALUES ${values}`,
          b.rows.flat(),
        )
        .then(() => b.resolve(), b.reject);
    }, 3);
  }
  batch.rows.push(row);
  return batch.done;
}

async function run(task: string, p: Payload, ctx: HandlerContext): Promise<void> {
  const started = Date.now();
  if (p.hangMs) await new Promise((r) => setTimeout(r, p.hangMs));
  if (p.sleepMs) await sleep(p.sleepMs, undefined, { signal: ctx.signal });
  if (p.failTimes && ctx.attempt <= p.failTimes) throw new Error(`planned failure on attempt ${ctx.attempt}`);
  await record([ctx.executionId, ctx.attempt, task, JSON.stringify(ctx.groups), ctx.streamKey, p.seq ?? null, started, Date.now(), process.pid]);
}

export default {
  rec: (p: unknown, ctx: HandlerContext) => run('rec', p as Payload, ctx),
  'rec-b': (p: unknown, ctx: HandlerContext) => run('rec-b', p as Payload, ctx),
  chaos: (p: unknown, ctx: HandlerContext) => run('chaos', p as Payload, ctx),
  'chaos-rate': (p: unknown, ctx: HandlerContext) => run('chaos-rate', p as Payload, ctx),
};
