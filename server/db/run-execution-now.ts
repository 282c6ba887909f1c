// "Retry now": a scheduled execution (queued with run_at in the future — a retry's backoff
// or a producer's delay) becomes due at once: run_at = now(), and idle coordinators are
// woken (NOTIFY sluice_enqueue) so it is claimed without waiting for their poll. Under the
// task_runtime row lock, as every writer of a task's queued rows (the claim reads run_at
// without locks and relies on it). A row set aside on a saturated key stays aside: the
// key's limit still holds it (the finish that frees the key releases it, oldest first).
// Must run inside a transaction (the caller's audit commits with it).
import type { Db } from './pool';
import { ENQUEUE_CHANNEL } from './enqueue-executions';
import { lockTask } from './task-lock';

export interface RunNowResult {
  id: number;
  previousRunAt: Date;
  runAt: Date;
}

/** Null when the execution is not a scheduled row of `task` (already due, running, finished). */
export async function runExecutionNow(db: Db, task: string, id: number): Promise<RunNowResult | null> {
  await lockTask(db, task);
  const r = await db.query<{ id: number; previous: Date; run_at: Date }>(
    // its claim_at moves down with run_at: the partition's claim floor follows, under the
    // task lock (sluice_claim_floor_lower; migration 20261203000100000_claim_floor)
    `WITH old AS (SELECT e.id, e.run_at AS previous FROM executions e WHERE e.id = $2 AND e.task = $1 AND e.state = 'queued' AND e.run_at > now()),
     moved AS (
       UPDATE executions e SET run_at = now() FROM old WHERE e.id = old.id AND e.state = 'queued'
       RETURNING e.id, old.previous, e.run_at, e.partition, e.claim_at, e.waiting_on
     )
     SELECT m.id, m.previous, m.run_at,
            CASE WHEN m.waiting_on IS NULL THEN sluice_claim_floor_lower($1, ARRAY[m.partition], ARRAY[m.claim_at]) END AS lowered
     FROM moved m`,
    [task, id],
  );
  const row = r.rows[0];
  if (!row) return null;
  await db.query(`SELECT pg_notify('${ENQUEUE_CHANNEL}', $1)`, [task]);
  return { id: row.id, previousRunAt: row.previous, runAt: row.run_at };
}
