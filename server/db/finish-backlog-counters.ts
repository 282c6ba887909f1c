// The partition counters of backlog rows finished without running (a cancel of queued and
// spilled rows, a removed task's backlog drained into dead letters): depth falls by the
// executions rows, spilled by the overflow rows, and the outcome's total rises by both —
// in partition_outcomes since migration 20261207000200000_partition_outcomes. One statement;
// the caller holds the partitions' partition_stats row locks (the lock order's place for both
// tables).
import type { Db } from './pool';

export interface BacklogFinished {
  /** executions rows (queued or blocked) finished, per partition */
  depth: number;
  /** overflow rows finished, per partition */
  spilled: number;
}

export async function finishBacklogCounters(db: Db, task: string, outcome: 'canceled' | 'dead', perPartition: ReadonlyMap<number, BacklogFinished>): Promise<void> {
  if (perPartition.size === 0) return;
  const parts = [...perPartition.keys()].sort((a, b) => a - b);
  const total = outcome === 'canceled' ? 'canceled_total' : 'dead_total';
  await db.query(
    `WITH d AS (SELECT * FROM unnest($2::int[], $3::bigint[], $4::bigint[]) AS d(part, depth, spilled)),
     ps AS (
       UPDATE partition_stats ps
       SET depth = greatest(ps.depth - d.depth, 0), spilled = greatest(ps.spilled - d.spilled, 0), updated_at = now()
       FROM d WHERE ps.task = $1 AND ps.partition = d.part
     )
     UPDATE partition_outcomes po SET ${total} = po.${total} + d.depth + d.spilled
     FROM d WHERE po.task = $1 AND po.partition = d.part`,
    [task, parts, parts.map((p) => perPartition.get(p)!.depth), parts.map((p) => perPartition.get(p)!.spilled)],
  );
}
