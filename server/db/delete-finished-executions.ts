// Retention of executions, one bounded batch per call (each call one statement, so one
// short transaction; the retention service loops). Attempts go in the same statement as
// their execution. Batches are found oldest first through executions_finished_idx
// (finished_at, partial on finished states) filtered by task and state, from the last
// batch's finished_at on (the retention service passes it back within a run): the entries
// of the rows earlier batches deleted stay in the index until vacuum, and while a snapshot
// is held none of them can be killed, so each batch walked all of them again — bench:soak's
// hold (2026-12-02): 79 ms and 43,105 buffers per 1,000-row batch, 9.8 s of database time
// in 20 s. Not kept across runs: a keyed row inside its idempotency window or a dead row
// with its dead letter is passed over and may become deletable later.
//   - succeeded / canceled: finished before the task's cutoff; a keyed row also not inside
//     the idempotency window (server/core/retention-policy.ts).
//   - dead: the row lives as long as its dead letter (the DLQ view and replay read it); once
//     the dead letter is gone (trimmed, purged) and the window has passed, it goes.
// And metric samples older than their retention.
import type { Db } from './pool';

export type FinishedState = 'succeeded' | 'canceled' | 'dead';

const DELETE_BATCH = `
  WITH gone AS (
    DELETE FROM executions WHERE id IN (
      SELECT e.id FROM executions e
       WHERE e.task = $1 AND e.state = $2 AND e.finished_at < now() - make_interval(secs => $3 / 1000.0)
         AND e.finished_at >= $6
         AND (e.idempotency_key IS NULL OR e.finished_at < now() - make_interval(secs => $4 / 1000.0))
         %DEAD%
       ORDER BY e.finished_at LIMIT $5
    ) RETURNING id, finished_at
  ), attempts AS (
    DELETE FROM execution_attempts a USING gone WHERE a.execution_id = gone.id
  )
  SELECT count(*)::int AS n, max(finished_at) AS last FROM gone`;

/** The batch of succeeded or canceled rows ($1 task, $2 state, $3 retain ms, $4 window ms, $5 limit, $6 from). */
export const SUCCEEDED_OR_CANCELED = DELETE_BATCH.replace('%DEAD%', '');
const DEAD = DELETE_BATCH.replace('%DEAD%', 'AND NOT EXISTS (SELECT 1 FROM dead_letters d WHERE d.execution_id = e.id)');

/**
 * Deletes up to `limit` finished executions of `task` in `state` that finished more than
 * `retainMs` ago (keyed ones also more than `windowMs` ago; dead ones only without a dead
 * letter, and `retainMs` is the window for them), finished at or after `from` (null: any).
 * Returns how many went and the latest finished_at among them (the next batch's `from`).
 */
export async function deleteFinishedExecutionsBatch(
  db: Db, task: string, state: FinishedState, retainMs: number, windowMs: number, limit: number, from: Date | null = null,
): Promise<{ n: number; last: Date | null }> {
  const r = await db.query<{ n: number; last: Date | null }>(state === 'dead' ? DEAD : SUCCEEDED_OR_CANCELED, [
    task, state, retainMs, windowMs, limit, from ?? '-infinity',
  ]);
  return { n: r.rows[0]!.n, last: r.rows[0]!.last ?? from };
}

/**
 * Ends the idempotency window of up to `limit` finished executions kept past it (dead rows
 * with their dead letter, tasks with a long retention): their key no longer dedupes. Reads
 * only keyed finished rows (executions_keyed_finished_idx).
 */
export async function clearExpiredIdempotencyKeys(db: Db, windowMs: number, limit: number): Promise<number> {
  const r = await db.query(
    `UPDATE executions SET idempotency_key = NULL WHERE id IN (
       SELECT id FROM executions
        WHERE idempotency_key IS NOT NULL AND state IN ('succeeded', 'dead', 'canceled')
          AND finished_at < now() - make_interval(secs => $1 / 1000.0)
        ORDER BY finished_at LIMIT $2)`,
    [windowMs, limit],
  );
  return r.rowCount ?? 0;
}

/** Each task's own `retention` section (task config), null when it has none. */
export async function readTaskRetentions(db: Db): Promise<{ task: string; retention: { succeededHours?: number; canceledHours?: number } | null }[]> {
  const r = await db.query(`SELECT task, definition -> 'retention' AS retention FROM task_runtime ORDER BY task`);
  return r.rows as { task: string; retention: { succeededHours?: number; canceledHours?: number } | null }[];
}

export async function deleteOldMetricSamples(db: Db, retainMs: number): Promise<number> {
  const a = await db.query(`DELETE FROM metric_samples WHERE at < now() - make_interval(secs => $1 / 1000.0)`, [retainMs]);
  const b = await db.query(`DELETE FROM metric_top_keys WHERE at < now() - make_interval(secs => $1 / 1000.0)`, [retainMs]);
  return (a.rowCount ?? 0) + (b.rowCount ?? 0);
}
