// Rate limits (issue #19): what rate limits hold right now, per task, for the control
// plane's Prometheus families and the metrics sampler's rate_held gauge. Reads rate_state
// (the scopes that started work within about a burst window; slot GC keeps it small) with
// the same allowance the claim computes (sluice_rate_allowance over sluice_key_rate /
// task_runtime.rate), and the rate-bound keys' queued counters from group_slots by primary
// key: O(rate_state rows), never a scan of executions. What the numbers mean:
// server/core/rate-limit.ts rateHeldExecutions and docs/operators.md "Rate-held executions".
import type { Db } from './pool';

export interface RateHeldRow {
  task: string;
  /** Group keys whose rate holds them now (allowance < 0: their next slot is in the future). */
  held_keys: number;
  /**
   * The task's own rate is bound now (allowance < 1): the executions it may still start now,
   * 0 (allowance < 0) or 1; null = not bound (no task rate, or room for two or more).
   */
  task_slots: number | null;
  /**
   * Queued executions of the rate-bound keys beyond the starts each may still make now
   * (floor(allowance) + 1, none below 0): a key is bound when its allowance is below 1 or
   * the claim has rows parked on its rate (rate_state.parked_until set). group_slots.queued
   * counts the parked rows too; a row with two such keys counts twice.
   */
  held_queued: number;
}

export async function readRateHeld(db: Db): Promise<RateHeldRow[]> {
  const r = await db.query<RateHeldRow>(
    `WITH now_ms AS (SELECT extract(epoch FROM clock_timestamp()) * 1000 AS t),
     scopes AS (
       SELECT rs.task, rs.group_name, rs.group_key, rs.parked_until IS NOT NULL AS parked,
              sluice_rate_allowance(CASE WHEN rs.group_name = '' THEN rt.rate -> 'task'
                                         ELSE sluice_key_rate(rt.groups, rs.group_name, rs.group_key) END, rs.tat_ms, now_ms.t) AS a
       FROM rate_state rs JOIN task_runtime rt ON rt.task = rs.task AND rt.active, now_ms
       WHERE rs.tat_ms > now_ms.t OR rs.parked_until IS NOT NULL
     ),
     bound AS (SELECT * FROM scopes WHERE a < 1 OR (parked AND a IS NOT NULL))
     SELECT b.task, (count(*) FILTER (WHERE b.group_name <> '' AND b.a < 0))::int AS held_keys,
            min(CASE WHEN b.a < 0 THEN 0 ELSE 1 END) FILTER (WHERE b.group_name = '' AND b.a < 1) AS task_slots,
            coalesce(sum(greatest(gs.queued - CASE WHEN b.a < 0 THEN 0 ELSE floor(b.a)::int + 1 END, 0)) FILTER (WHERE b.group_name <> ''), 0)::int AS held_queued
     FROM bound b
     LEFT JOIN group_slots gs ON gs.task = b.task AND gs.group_name = b.group_name AND gs.group_key = b.group_key
     GROUP BY b.task ORDER BY b.task`,
  );
  return r.rows;
}
