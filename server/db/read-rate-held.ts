// Rate limits (issue #19): what rate limits hold right now, per task, for the control
// plane's Prometheus families and the metrics sampler's rate_held gauge (the Held by rate
// limits chart). Reads rate_state (the scopes that started work within about a burst window,
// or with rows parked on them; slot GC keeps it small) with the same allowance the claim
// computes (sluice_rate_allowance over sluice_key_rate / task_runtime.rate), the rate-bound
// keys' queued counters from group_slots (group_slot_counts: with the moves not yet folded)
// and each such task's depth from partition_stats,
// by primary key: O(rate_state rows + their tasks' partitions), never a scan of executions.
//
// Rate-held executions (docs/operators.md "Rate-held executions" says why this shape):
//  - a scope is rate-bound at t when its allowance is below 1, or (a key) while the claim has
//    rows parked on its rate (parked_until set). It may still start floor(allowance) + 1
//    executions now (none while the allowance is negative); a scope kept at its rate by a
//    backlog sits in [−1, 1). Any other scope has room and holds nothing (its rows wait on a
//    concurrency limit or the next claim);
//  - a bound key holds its group_slots.queued (parked rows included) beyond those starts;
//  - a bound task rate holds the task's depth but its one start at most;
//  - rate_held = the larger of the keys' sum and the task rate's, never their sum (the task
//    rate's free start goes to a row no key holds), capped at the depth (a row carrying two
//    bound keys of two rated groups is in both keys' counts). Unit costs.
import type { Db } from './pool';

export interface RateHeldRow {
  task: string;
  /** Group keys whose rate holds them now (allowance < 0: their next slot is in the future). */
  held_keys: number;
  /** Executions waiting on a rate now (see above), at most the task's depth. */
  rate_held: number;
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
     per_task AS (
       SELECT b.task, (count(*) FILTER (WHERE b.group_name <> '' AND b.a < 0))::int AS held_keys,
              -- the task rate, when bound: the starts it may still make (0 or 1)
              min(CASE WHEN b.a < 0 THEN 0 ELSE 1 END) FILTER (WHERE b.group_name = '' AND b.a < 1) AS task_free,
              coalesce(sum(greatest(gs.queued - CASE WHEN b.a < 0 THEN 0 ELSE floor(b.a)::bigint + 1 END, 0))
                         FILTER (WHERE b.group_name <> ''), 0) AS keys_held
       FROM scopes b
       LEFT JOIN LATERAL (
         SELECT greatest(c.queued, 0) AS queued FROM group_slot_counts c
         WHERE c.task = b.task AND c.group_name = b.group_name AND c.group_key = b.group_key
       ) gs ON true
       WHERE b.a < 1 OR (b.parked AND b.a IS NOT NULL)
       GROUP BY b.task
     )
     SELECT p.task, p.held_keys,
            least(d.depth, greatest(p.keys_held, CASE WHEN p.task_free IS NULL THEN 0 ELSE d.depth - p.task_free END, 0))::int AS rate_held
     FROM per_task p
     CROSS JOIN LATERAL (SELECT coalesce(sum(ps.depth), 0) AS depth FROM partition_stats ps WHERE ps.task = p.task) d
     ORDER BY p.task`,
  );
  return r.rows;
}
