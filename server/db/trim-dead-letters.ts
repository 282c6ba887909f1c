// The DLQ limits of a task (dlq.retentionDays, dlq.maxDepth), enforced by deleting the
// oldest dead letters beyond them, a batch at a time (short transactions; the batch's
// rows come from the (task, dead_at DESC, id DESC) index scanned backwards):
//   retention: rows of the task with dead_at < now() − retentionDays;
//   maxDepth:  the (maxDepth+1)-th newest row is found with OFFSET maxDepth on the same
//              index (reads maxDepth index entries, ~100k by default, no table scan), and
//              it and everything older go. Dead letters arriving meanwhile are newer than
//              the boundary and stay.
// Each batch records what it removed (count, oldest/newest dead_at) for dlq_events.
import type { Db } from './pool';

export interface TrimLimits {
  task: string;
  maxDepth: number;
  retentionDays: number;
}

export interface TrimmedBatch {
  removed: number;
  oldest: Date | null;
  newest: Date | null;
}

/** Limits per task with dead letters: the task's definition, else the schema's defaults. */
export async function deadLetterLimitsByTask(db: Db, defaults: { maxDepth: number; retentionDays: number }): Promise<TrimLimits[]> {
  const r = await db.query<{ task: string; max_depth: number | null; retention_days: number | null }>(
    `WITH RECURSIVE t AS (
       (SELECT task FROM dead_letters ORDER BY task LIMIT 1)
       UNION ALL
       SELECT (SELECT d.task FROM dead_letters d WHERE d.task > t.task ORDER BY d.task LIMIT 1) FROM t WHERE t.task IS NOT NULL
     )
     SELECT t.task, (r.definition -> 'dlq' ->> 'maxDepth')::int AS max_depth, (r.definition -> 'dlq' ->> 'retentionDays')::int AS retention_days
       FROM t LEFT JOIN task_runtime r ON r.task = t.task
      WHERE t.task IS NOT NULL ORDER BY t.task`,
  );
  return r.rows.map((x) => ({ task: x.task, maxDepth: x.max_depth ?? defaults.maxDepth, retentionDays: x.retention_days ?? defaults.retentionDays }));
}

const DELETE_BATCH = `
  WITH victims AS (
    SELECT id FROM dead_letters WHERE task = $1 AND %COND%
     ORDER BY dead_at, id LIMIT $3
  ), del AS (
    DELETE FROM dead_letters d USING victims v WHERE d.id = v.id RETURNING d.dead_at
  )
  SELECT count(*)::int AS removed, min(dead_at) AS oldest, max(dead_at) AS newest FROM del`;

/** Deletes up to `batch` dead letters of `task` older than `retentionDays`. */
export async function trimExpiredBatch(db: Db, task: string, retentionDays: number, batch: number): Promise<TrimmedBatch> {
  const r = await db.query<TrimmedBatch>(DELETE_BATCH.replace('%COND%', `dead_at < now() - make_interval(days => $2)`), [task, retentionDays, batch]);
  return r.rows[0]!;
}

/** The newest dead letter beyond the task's maxDepth (it and everything older must go), or null. */
export async function depthBoundary(db: Db, task: string, maxDepth: number): Promise<{ deadAt: string; id: number } | null> {
  const r = await db.query<{ deadAt: string; id: number }>(
    `SELECT to_char(dead_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS "deadAt", id
       FROM dead_letters WHERE task = $1 ORDER BY dead_at DESC, id DESC OFFSET $2 LIMIT 1`,
    [task, maxDepth],
  );
  return r.rows[0] ?? null;
}

/** Deletes up to `batch` dead letters of `task` at or before the boundary row. */
export async function trimBeyondBatch(db: Db, task: string, boundary: { deadAt: string; id: number }, batch: number): Promise<TrimmedBatch> {
  const r = await db.query<TrimmedBatch>(
    DELETE_BATCH.replace('%COND%', `(dead_at, id) <= ($2::timestamptz, $4::bigint)`),
    [task, boundary.deadAt, batch, boundary.id],
  );
  return r.rows[0]!;
}

export async function recordDeadLetterEvent(
  db: Db,
  e: { task: string; kind: 'retention' | 'max_depth'; removed: number; limitValue: number; oldest: Date | null; newest: Date | null },
): Promise<number> {
  const r = await db.query<{ id: number }>(
    `INSERT INTO dlq_events (task, kind, removed, limit_value, oldest_dead_at, newest_dead_at)
     VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
    [e.task, e.kind, e.removed, e.limitValue, e.oldest, e.newest],
  );
  return r.rows[0]!.id;
}
