// The changes a task's charts mark on their time axis: config versions that changed the
// task's definition (a pause or resume when `paused` flipped), and DLQ replays and purges
// whose frozen set held the task's dead letters. Kept cheap for the Overview (bench:
// dashboard): config versions are read newest first by primary key, at most MARKER_LIMIT of
// them, and their config json is only opened for versions inside the window; replays and
// purges come from the audit log through its (action, at) index.
import type { Db } from './pool';

export const MARKER_LIMIT = 100;

export interface ChartMarkerRow {
  kind: 'config' | 'pause' | 'resume' | 'replay' | 'purge';
  at: Date;
  /** The config version, the replay job id, or the purge preview id. */
  ref: string;
  actor: string;
  message: string;
  /** Dead letters of this task in a replay / purge set. */
  count: number | null;
}

export async function readChartMarkers(db: Db, task: string, from: Date, to: Date): Promise<ChartMarkerRow[]> {
  const r = await db.query<ChartMarkerRow>(
    `WITH recent AS (
       SELECT version, created_at, author, message, config FROM config_versions ORDER BY version DESC LIMIT ${MARKER_LIMIT}
     ), versions AS (
       SELECT v.version, v.created_at, v.author, v.message,
              (SELECT t FROM jsonb_array_elements(v.config->'tasks') t WHERE t->>'name' = $1 LIMIT 1) AS cur,
              (SELECT (SELECT t FROM jsonb_array_elements(p.config->'tasks') t WHERE t->>'name' = $1 LIMIT 1)
                 FROM config_versions p WHERE p.version < v.version ORDER BY p.version DESC LIMIT 1) AS prev
       FROM recent v WHERE v.created_at >= $2 AND v.created_at <= $3
     )
     SELECT CASE WHEN coalesce((cur->>'paused')::boolean, false) IS DISTINCT FROM coalesce((prev->>'paused')::boolean, false) AND prev IS NOT NULL AND cur IS NOT NULL
                 THEN CASE WHEN (cur->>'paused')::boolean THEN 'pause' ELSE 'resume' END
                 ELSE 'config' END AS kind,
            created_at AS at, version::text AS ref, author AS actor, message, NULL::int AS count
     FROM versions WHERE cur IS DISTINCT FROM prev
     UNION ALL
     SELECT CASE WHEN action = 'dlq.replay' THEN 'replay' ELSE 'purge' END, at, target_id, actor_label, '',
            (SELECT (x->>'count')::int FROM jsonb_array_elements(meta->'byTask') x WHERE x->>'task' = $1 LIMIT 1)
     FROM (SELECT * FROM audit_log WHERE action IN ('dlq.replay', 'dlq.purge') AND at >= $2 AND at <= $3
           ORDER BY at DESC LIMIT ${MARKER_LIMIT}) a
     WHERE meta->'byTask' @> jsonb_build_array(jsonb_build_object('task', $1::text))
     ORDER BY at`,
    [task, from, to],
  );
  return r.rows;
}
