// Slot GC: deletes group_slots rows idle (no in-flight, nothing queued) for idleMs.
// A scan of group_slots (one row per key in use; GC runs every few minutes): no index
// names the counters, so the claim's and finish's counter updates stay HOT (migration
// 20261123000700000). Rows are picked FOR UPDATE SKIP LOCKED in key order, so
// GC never waits on (or deadlocks with) an enqueue or claim holding a slot row; a row
// that gained work meanwhile is re-checked under the lock and kept.
import type { Db } from './pool';

export async function gcGroupSlots(db: Db, idleMs: number, limit = 10_000): Promise<number> {
  const r = await db.query(
    `DELETE FROM group_slots gs USING (
       SELECT task, group_name, group_key FROM group_slots
       WHERE in_flight = 0 AND queued = 0 AND last_used_at < now() - make_interval(secs => $1 / 1000.0)
       ORDER BY task, group_name, group_key
       LIMIT $2
       FOR UPDATE SKIP LOCKED
     ) idle
     WHERE gs.task = idle.task AND gs.group_name = idle.group_name AND gs.group_key = idle.group_key
       AND gs.in_flight = 0 AND gs.queued = 0`,
    [idleMs, limit],
  );
  return r.rowCount ?? 0;
}
