// The changes a task's charts mark on their time axis: config versions that changed the
// task's definition (a pause or resume when `paused` flipped), and DLQ replays and purges
// whose frozen set held the task's dead letters. Kept cheap for the Overview (bench:
// dashboard): config versions are read newest first by primary key, at most MARKER_LIMIT of
// them, and their config json is only opened for versions inside the window; replays and
// purges come from the audit log through its (action, at) index. Guarded rollouts (issue
// 20): a version applied with guard is a 'guarded' marker; its end a 'promoted' or
// 'rolled-back' one (whose rollback version is not drawn again as a plain config change).
import type { Db } from './pool';

/** The most config versions (and, apart, replays and purges) a chart marks: more would not read as marks. */
export const MARKER_LIMIT = 40;

export interface ChartMarkerRow {
  kind: 'config' | 'pause' | 'resume' | 'replay' | 'purge' | 'guarded' | 'promoted' | 'rolled-back';
  at: Date;
  /** The config version (for promoted / rolled-back: the guarded version), the replay job id, or the purge preview id. */
  ref: string;
  actor: string;
  message: string;
  /** Dead letters of this task in a replay / purge set; for rolled-back, the version the rollback made. */
  count: number | null;
}

export async function readChartMarkers(db: Db, task: string, from: Date, to: Date): Promise<ChartMarkerRow[]> {
  const r = await db.query<ChartMarkerRow>(
    `WITH recent AS (
       SELECT version, created_at FROM config_versions ORDER BY version DESC LIMIT ${MARKER_LIMIT}
     ), span AS (
       SELECT min(version) AS lo, max(version) AS hi FROM recent WHERE created_at >= $2 AND created_at <= $3
     ), defs AS (
       -- The window's versions and the one before it, each config opened once; the task's
       -- definition is compared with the previous version's by lag().
       SELECT c.version, c.created_at, c.author, c.message,
              jsonb_path_query_first(c.config, '$.tasks[*] ? (@.name == $n)', jsonb_build_object('n', $1::text)) AS cur
       FROM config_versions c, span
       WHERE c.version <= span.hi
         AND c.version >= coalesce((SELECT max(version) FROM config_versions WHERE version < span.lo), span.lo)
     ), versions AS (
       SELECT *, lag(cur) OVER (ORDER BY version) AS prev, lag(version) OVER (ORDER BY version) AS prev_version FROM defs
     )
     SELECT CASE WHEN coalesce((cur->>'paused')::boolean, false) IS DISTINCT FROM coalesce((prev->>'paused')::boolean, false) AND prev IS NOT NULL AND cur IS NOT NULL
                 THEN CASE WHEN (cur->>'paused')::boolean THEN 'pause' ELSE 'resume' END
                 WHEN EXISTS (SELECT 1 FROM config_guards g WHERE g.version = versions.version AND $1 = ANY(g.tasks)) THEN 'guarded'
                 ELSE 'config' END AS kind,
            created_at AS at, version::text AS ref, author AS actor, message, NULL::int AS count
     FROM versions WHERE created_at >= $2 AND created_at <= $3 AND cur IS DISTINCT FROM prev
       -- A guard's rollback version is drawn as the guard's rolled-back marker below.
       AND NOT EXISTS (SELECT 1 FROM config_guards g WHERE g.rollback_version = versions.version AND $1 = ANY(g.tasks))
     UNION ALL
     -- Guarded rollouts of this task that ended in the window (config_guards is one row per guarded version).
     SELECT CASE WHEN status = 'promoted' THEN 'promoted' ELSE 'rolled-back' END, ended_at, version::text, ended_by, coalesce(reason, ''),
            rollback_version::int
     FROM config_guards
     WHERE status IN ('promoted', 'rolled_back', 'aborted') AND ended_at >= $2 AND ended_at <= $3 AND $1 = ANY(tasks)
     UNION ALL
     SELECT CASE WHEN action = 'dlq.replay' THEN 'replay' ELSE 'purge' END, at, target_id, actor_label, '',
            (SELECT (x->>'count')::int FROM jsonb_array_elements(meta->'byTask') x WHERE x->>'task' = $1 LIMIT 1)
     FROM ((SELECT action, at, target_id, actor_label, meta FROM audit_log WHERE action = 'dlq.replay' AND at >= $2 AND at <= $3 ORDER BY at DESC LIMIT ${MARKER_LIMIT})
           UNION ALL
           (SELECT action, at, target_id, actor_label, meta FROM audit_log WHERE action = 'dlq.purge' AND at >= $2 AND at <= $3 ORDER BY at DESC LIMIT ${MARKER_LIMIT})) a
     WHERE meta->'byTask' @> jsonb_build_array(jsonb_build_object('task', $1::text))
     ORDER BY at`,
    [task, from, to],
  );
  return r.rows;
}
