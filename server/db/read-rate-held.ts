// Rate limits (issue #19): what rate limits hold right now, per task, for the control
// plane's Prometheus families. Reads rate_state (the scopes that started work within about
// a burst window; slot GC keeps it small) with the same allowance the claim computes
// (sluice_rate_allowance over sluice_key_rate / task_runtime.rate), and the held keys'
// queued counters from group_slots by primary key: never a scan of executions.
import type { Db } from './pool';

export interface RateHeldRow {
  task: string;
  /** Group keys whose rate holds them now. */
  held_keys: number;
  /** The task's own rate holds it now (nothing of it is claimed). */
  task_held: boolean;
  /** Queued executions of the held keys (group_slots.queued; a row with two held keys counts twice). */
  held_queued: number;
}

export async function readRateHeld(db: Db): Promise<RateHeldRow[]> {
  const r = await db.query<RateHeldRow>(
    `WITH now_ms AS (SELECT extract(epoch FROM clock_timestamp()) * 1000 AS t),
     held AS (
       SELECT rs.task, rs.group_name, rs.group_key
       FROM rate_state rs JOIN task_runtime rt ON rt.task = rs.task AND rt.active, now_ms
       WHERE rs.tat_ms > now_ms.t
         AND sluice_rate_allowance(CASE WHEN rs.group_name = '' THEN rt.rate -> 'task'
                                        ELSE sluice_key_rate(rt.groups, rs.group_name, rs.group_key) END, rs.tat_ms, now_ms.t) < 0
     )
     SELECT h.task, (count(*) FILTER (WHERE h.group_name <> ''))::int AS held_keys, bool_or(h.group_name = '') AS task_held,
            coalesce(sum(gs.queued) FILTER (WHERE h.group_name <> ''), 0)::int AS held_queued
     FROM held h
     LEFT JOIN group_slots gs ON gs.task = h.task AND gs.group_name = h.group_name AND gs.group_key = h.group_key
     GROUP BY h.task ORDER BY h.task`,
  );
  return r.rows;
}
