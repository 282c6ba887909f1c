// The heaviest group keys per (task, group) from the live group_slots counters (through
// group_slot_counts: with the claims' and finishes' moves not yet folded), with
// the group's total load and number of active keys, so a hot-key share can be computed
// without shipping every key: rows with in_flight = 0 and queued = 0 are skipped, the
// rest are ranked per group by in_flight + queued and the top `perGroup` returned.
// group_slots holds one row per key in use, so this stays a counter read.
import type { Db } from './pool';
import type { GroupKeyLoad } from '../core/alert-observation';

export interface GroupKeyLoadRow extends GroupKeyLoad {
  task: string;
}

export async function readGroupKeyLoads(db: Db, tasks: readonly string[], perGroup: number): Promise<GroupKeyLoadRow[]> {
  const r = await db.query<GroupKeyLoadRow>(
    `SELECT task, group_name, group_key, in_flight, queued, group_total, group_active FROM (
       SELECT task, group_name, group_key, greatest(in_flight, 0) AS in_flight, greatest(queued, 0) AS queued,
              row_number() OVER w AS rn,
              (sum(greatest(in_flight, 0) + greatest(queued, 0)) OVER g)::bigint AS group_total,
              (count(*) OVER g)::int AS group_active
       FROM group_slot_counts
       WHERE task = ANY ($1) AND (in_flight > 0 OR queued > 0)
       WINDOW g AS (PARTITION BY task, group_name),
              w AS (PARTITION BY task, group_name ORDER BY in_flight + queued DESC, group_key)
     ) ranked
     WHERE rn <= $2
     ORDER BY task, group_name, rn`,
    [tasks, perGroup],
  );
  return r.rows;
}
