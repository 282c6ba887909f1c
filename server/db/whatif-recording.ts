// The executions a what-if preview replays: one task's rows that became ready (run_at) in
// [since, now], finished (succeeded or dead: they ran) or not yet (queued, blocked,
// running). Finished rows are found through executions_finished_idx (finished_at ≥ since:
// a row ready in the window finished after it), unfinished ones through the task's
// claim/running indexes; no new index on executions (every index there is written by the
// claim and the finish). Canceled rows are left out (most never ran). At most `cap` rows
// (the newest), so a busy task's preview stays a bounded read. Each row's priority is read,
// and for each of `costPaths` (a task's rateCostPath, today's and the proposed one) the
// payload's value there (the payload is read only when a path is asked for), and its id:
// rows of one enqueue call share run_at, and the claim takes ties in id order.
import type { Db } from './pool';
import type { RecordedExecution } from '../core/whatif-recording';

export async function readWhatIfRecording(
  db: Db,
  task: string,
  windowMs: number,
  cap: number,
  costPaths: readonly string[] = [],
): Promise<{ rows: RecordedExecution[]; start: Date; end: Date; truncated: boolean }> {
  const r = await db.query<RecordedExecution & { now: Date }>(
    `WITH bounds AS (SELECT now() AS now, now() - make_interval(secs => $2 / 1000.0) AS since)
     SELECT x.id::text AS id, x.partition, x.groups, x.stream_key AS "streamKey", x.run_at AS "runAt", x.started_at AS "startedAt",
            x.finished_at AS "finishedAt", x.state, x.priority, x.costs, b.now
     FROM bounds b,
     LATERAL (
       (SELECT id, partition, groups, stream_key, run_at, started_at, finished_at, state, priority,
               CASE WHEN cardinality($4::text[]) > 0 THEN
                 (SELECT jsonb_object_agg(p, payload #> string_to_array(p, '.')) FROM unnest($4::text[]) p) END AS costs
        FROM executions
        WHERE state IN ('succeeded', 'dead') AND finished_at >= b.since AND task = $1 AND run_at >= b.since)
       UNION ALL
       (SELECT id, partition, groups, stream_key, run_at, started_at, finished_at, state, priority,
               CASE WHEN cardinality($4::text[]) > 0 THEN
                 (SELECT jsonb_object_agg(p, payload #> string_to_array(p, '.')) FROM unnest($4::text[]) p) END AS costs
        FROM executions
        WHERE task = $1 AND state IN ('queued', 'blocked', 'running') AND run_at >= b.since AND run_at <= b.now)
     ) x
     ORDER BY x.run_at DESC, x.id DESC
     LIMIT $3`,
    [task, windowMs, cap + 1, [...costPaths]],
  );
  const truncated = r.rows.length > cap;
  const rows = truncated ? r.rows.slice(0, cap) : r.rows;
  const end = r.rows[0]?.now ?? (await db.query<{ now: Date }>('SELECT now() AS now')).rows[0]!.now;
  return {
    rows: rows.map(({ now: _now, costs, ...row }) => (costs ? { ...row, costs } : row)),
    start: truncated ? rows[rows.length - 1]!.runAt : new Date(end.getTime() - windowMs),
    end,
    truncated,
  };
}
