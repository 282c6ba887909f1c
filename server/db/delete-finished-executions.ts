// Retention: deletes succeeded and canceled executions (and their attempt history)
// finished more than retainMs ago, oldest first, in bounded batches via
// executions_finished_idx; and metric samples older than their retention. Dead executions stay (dead_letters has the copy the
// DLQ view needs; its own retention is the DLQ's business).
import type { Db } from './pool';

export async function deleteSucceededExecutions(db: Db, retainMs: number, limit = 10_000): Promise<number> {
  const r = await db.query(
    `WITH gone AS (
       DELETE FROM executions WHERE id IN (
         SELECT id FROM executions
         WHERE state IN ('succeeded', 'canceled') AND finished_at < now() - make_interval(secs => $1 / 1000.0)
         ORDER BY finished_at LIMIT $2
       ) RETURNING id
     ), attempts AS (
       DELETE FROM execution_attempts a USING gone WHERE a.execution_id = gone.id
     )
     SELECT count(*)::int AS n FROM gone`,
    [retainMs, limit],
  );
  return r.rows[0].n as number;
}

export async function deleteOldMetricSamples(db: Db, retainMs: number): Promise<number> {
  const a = await db.query(`DELETE FROM metric_samples WHERE at < now() - make_interval(secs => $1 / 1000.0)`, [retainMs]);
  const b = await db.query(`DELETE FROM metric_top_keys WHERE at < now() - make_interval(secs => $1 / 1000.0)`, [retainMs]);
  return (a.rowCount ?? 0) + (b.rowCount ?? 0);
}
