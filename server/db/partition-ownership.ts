// Partition ownership, one statement per tick: release what this member owns but no
// longer wants (by rendezvous hashing over live members, computed in core), and take
// what it wants if the row is free or its owner is stale, stopped or draining. One
// `owner` column per (task, partition) means two owners at once cannot exist; a live
// owner keeps a partition until it releases it itself on its next tick, so handover
// waits at most one heartbeat interval. Every change is logged in partition_owner_log.
import type { Db } from './pool';

export interface PartitionRef {
  task: string;
  partition: number;
}

export interface OwnershipResult {
  taken: PartitionRef[];
  released: PartitionRef[];
  owned: PartitionRef[];
}

export async function syncOwnership(
  db: Db,
  me: string,
  wanted: readonly PartitionRef[],
  staleMs: number,
): Promise<OwnershipResult> {
  const r = await db.query<{ kind: 'taken' | 'released' | 'owned'; task: string; partition: number }>(
    `WITH want AS (
       SELECT * FROM unnest($2::text[], $3::int[]) AS w(task, partition)
     ),
     rel AS (
       UPDATE partition_owners o SET owner = NULL, since = now()
       WHERE o.owner = $1 AND NOT EXISTS (SELECT 1 FROM want w WHERE w.task = o.task AND w.partition = o.partition)
       RETURNING o.task, o.partition
     ),
     take AS (
       UPDATE partition_owners o SET owner = $1, since = now()
       FROM want w
       WHERE o.task = w.task AND o.partition = w.partition AND o.owner IS DISTINCT FROM $1
         AND (o.owner IS NULL OR NOT EXISTS (
               SELECT 1 FROM coordinators c
               WHERE c.id = o.owner AND c.stopped_at IS NULL AND NOT c.draining
                 AND c.last_heartbeat_at >= now() - make_interval(secs => $4 / 1000.0)))
       RETURNING o.task, o.partition
     ),
     log AS (
       INSERT INTO partition_owner_log (task, partition, owner, event)
       SELECT task, partition, $1::uuid, 'release' FROM rel
       UNION ALL SELECT task, partition, $1::uuid, 'take' FROM take
     )
     SELECT 'released' AS kind, task, partition FROM rel
     UNION ALL SELECT 'taken', task, partition FROM take
     UNION ALL SELECT 'owned', o.task, o.partition FROM partition_owners o
       WHERE o.owner = $1 AND EXISTS (SELECT 1 FROM want w WHERE w.task = o.task AND w.partition = o.partition)`,
    [me, wanted.map((w) => w.task), wanted.map((w) => w.partition), staleMs],
  );
  const out: OwnershipResult = { taken: [], released: [], owned: [] };
  for (const row of r.rows) out[row.kind].push({ task: row.task, partition: row.partition });
  // `owned` was read from the statement's snapshot (before `take`): add what we just took.
  out.owned.push(...out.taken);
  return out;
}

/** Partition counts of the tasks this member may serve (active tasks only). */
export async function taskPartitionCounts(db: Db, tasks: readonly string[]): Promise<Map<string, number>> {
  const r = await db.query<{ task: string; partitions: number }>(
    'SELECT task, partitions FROM task_runtime WHERE active AND task = ANY ($1::text[])',
    [tasks],
  );
  return new Map(r.rows.map((x) => [x.task, x.partitions]));
}
