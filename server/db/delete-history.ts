// Retention of history tables: one bounded batch per call, oldest first through an index on
// the age column (prisma/migrations/…_retention.sql), each call one statement. The tables
// and their conditions are fixed here (no caller-supplied SQL).
import type { Db } from './pool';

const HISTORY = {
  partition_owner_log: { key: 'id', where: 'at < $1', order: 'at' },
  reconcile_log: { key: 'id', where: 'at < $1', order: 'at' },
  task_breaker_events: { key: 'id', where: 'at < $1', order: 'at' },
  dlq_events: { key: 'id', where: 'at < $1', order: 'at' },
  audit_log: { key: 'id', where: 'at < $1', order: 'at' },
  // Events go with their alert (ON DELETE CASCADE); open alerts stay whatever their age.
  alerts: { key: 'id', where: `status = 'resolved' AND resolved_at < $1`, order: 'resolved_at' },
  webhook_deliveries: { key: 'id', where: `status IN ('delivered', 'failed') AND created_at < $1`, order: 'created_at' },
  // Items go with their job (ON DELETE CASCADE).
  dlq_replay_jobs: { key: 'id', where: 'finished_at IS NOT NULL AND finished_at < $1', order: 'finished_at' },
} as const;

export type HistoryTable = keyof typeof HISTORY;

/** Deletes up to `limit` rows of `table` older than `before`; returns how many went. */
export async function deleteHistoryBatch(db: Db, table: HistoryTable, before: Date, limit: number): Promise<number> {
  const t = HISTORY[table];
  const r = await db.query(
    `DELETE FROM ${table} WHERE ${t.key} IN (SELECT ${t.key} FROM ${table} WHERE ${t.where} ORDER BY ${t.order} LIMIT $2)`,
    [before, limit],
  );
  return r.rowCount ?? 0;
}
