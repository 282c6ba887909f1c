// The group_slots counter moves that claims and finishes logged (slot_deltas), added into
// group_slots outside the task lock by sluice_fold_slots (server/db/sql/functions/
// sluice_fold_slots.sql says why and in which lock order). group_slots plus the rows not
// yet folded are the true per-key counts at every commit.
import type { Db } from './pool';

/** Folds `task`'s logged moves; returns how many delta rows it folded. `wait`: wait for
 *  rows another fold holds (the reconciler, under the task lock) instead of skipping them. */
export async function foldSlotDeltas(db: Db, task: string, opts: { wait?: boolean } = {}): Promise<number> {
  const r = await db.query<{ n: number }>('SELECT sluice_fold_slots($1, $2) AS n', [task, opts.wait ?? false]);
  return Number(r.rows[0]!.n);
}

/** Tasks with logged moves not yet folded (a member that died before it folded, or a
 *  process that folds nothing itself), at most `limit`. */
export async function tasksWithSlotDeltas(db: Db, limit = 1000): Promise<string[]> {
  // A loose index scan of slot_deltas_task_idx: one probe per task, not one row per delta.
  const r = await db.query<{ task: string }>(
    `WITH RECURSIVE t AS (
       (SELECT s.task FROM slot_deltas s ORDER BY s.task, s.id LIMIT 1)
       UNION ALL
       SELECT n.task FROM t CROSS JOIN LATERAL (
         SELECT s.task FROM slot_deltas s WHERE s.task > t.task ORDER BY s.task, s.id LIMIT 1) n
     )
     SELECT task FROM t LIMIT $1`,
    [limit],
  );
  return r.rows.map((x) => x.task);
}
