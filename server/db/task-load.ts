// How busy each task is right now, from the counters (never count(*) on executions):
// task_counters.in_flight (cluster-wide running) and the per-partition depth / spilled /
// in-flight in partition_stats, summed per task. One grouped scan of partition_stats
// (a few rows per task) joined to task_runtime by primary key.
import type { Db } from './pool';

export interface TaskLoad {
  task: string;
  active: boolean;
  paused: boolean;
  /** The config version the runtime row was last synced to. */
  configVersion: number;
  inFlight: number;
  /** queued (incl. scheduled retries) + blocked, over all partitions */
  depth: number;
  spilled: number;
  partitions: number;
  /** depth of the deepest partition (for the imbalance hint in the list) */
  maxPartitionDepth: number;
}

export async function readTaskLoad(db: Db, tasks?: readonly string[]): Promise<TaskLoad[]> {
  const r = await db.query<TaskLoad>(
    `SELECT t.task, t.active, t.paused, t.config_version AS "configVersion", coalesce((SELECT c.in_flight FROM task_counters c WHERE c.task = t.task), 0) AS "inFlight",
            t.partitions,
            coalesce(sum(ps.depth), 0)::bigint AS depth,
            coalesce(sum(ps.spilled), 0)::bigint AS spilled,
            coalesce(max(ps.depth), 0)::bigint AS "maxPartitionDepth"
     FROM task_runtime t
     LEFT JOIN partition_stats ps ON ps.task = t.task
     WHERE $1::text[] IS NULL OR t.task = ANY ($1::text[])
     GROUP BY t.task
     ORDER BY t.task`,
    [tasks ? [...tasks] : null],
  );
  return r.rows;
}
