// The live per-partition counters (partition_stats, kept exact by enqueue/claim/finish)
// with each partition's owner coordinator. Reads only partitions of the task's current
// count (task_runtime.partitions). Counters, not a scan of executions.
import type { Db } from './pool';
import { coordinatorLive } from './coordinator-liveness';

export interface PartitionLiveRow {
  task: string;
  partition: number;
  depth: number;
  in_flight: number;
  spilled: number;
  arrivals_total: number;
  /** finished, by outcome (partition_stats counters) */
  processed_total: number;
  dead_total: number;
  canceled_total: number;
  /** backpressure outcomes since the task was created */
  rejected_total: number;
  throttled_total: number;
  shed_total: number;
  spilled_total: number;
  /** staged backpressure: how often the stage enqueue met changed (issue 23) */
  bp_stage_changes: number;
  owner_id: string | null;
  owner_name: string | null;
  owner_host: string | null;
  owner_heartbeat_at: Date | null;
  owner_stopped: boolean | null;
  /** the owner is live by the one liveness predicate (server/db/coordinator-liveness.ts) */
  owner_live: boolean;
}

/** `tasks` = null: every active task's partitions (no need to read the task list first). */
export async function readPartitionLive(db: Db, tasks: readonly string[] | null): Promise<PartitionLiveRow[]> {
  const r = await db.query<PartitionLiveRow>(
    `SELECT ps.task, ps.partition, ps.depth, ps.in_flight, ps.spilled, ps.arrivals_total,
            po.processed_total, po.dead_total, po.canceled_total,
            ps.rejected_total, ps.throttled_total, ps.shed_total, ps.spilled_total, ps.bp_stage_changes,
            o.owner AS owner_id, c.name AS owner_name, c.host AS owner_host,
            c.last_heartbeat_at AS owner_heartbeat_at, (c.stopped_at IS NOT NULL) AS owner_stopped,
            ${coordinatorLive('c')} AS owner_live
     FROM partition_stats ps
     JOIN partition_outcomes po ON po.task = ps.task AND po.partition = ps.partition
     JOIN task_runtime tr ON tr.task = ps.task AND ps.partition < tr.partitions AND ($1::text[] IS NOT NULL OR tr.active)
     LEFT JOIN partition_owners o ON o.task = ps.task AND o.partition = ps.partition
     LEFT JOIN coordinators c ON c.id = o.owner
     WHERE $1::text[] IS NULL OR ps.task = ANY ($1)
     ORDER BY ps.task, ps.partition`,
    [tasks],
  );
  return r.rows;
}
