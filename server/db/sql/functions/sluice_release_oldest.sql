-- sluice_release_oldest(task, keys, n): the one UPDATE every release ends in. For each key
-- ('group=key' or 'rate:group=key') the oldest n[i] rows of the task waiting on it, in claim
-- order (claim_at, id: priority first, see sluice_claim_rows), leave the waiting state
-- (waiting_on = NULL: back in the claim index); n[i] NULL = every row. Returns how many.
-- One LATERAL probe of executions_waiting_idx per key, rows updated by ctid: the caller
-- holds the task_runtime row lock (every engine path takes it first), so the rows found are
-- current when updated. Callers: sluice_release_rows (finish, cycle, config sweep) and
-- sluice_release_stranded (reconciler), which differ only in how they count a key's room
-- (sluice_release_room).
-- The released rows are claimable again with the claim_at they had, which may be below their
-- partition's claim floor (every scan of a head starts there): sluice_claim_floor_lower
-- lowers it in the same transaction, the statement after the update (issue #18, 2026-12-03;
-- one statement until 2026-12-07): only task-lock holders raise a floor, and the caller holds
-- the task lock, so no raise comes between the two.
-- plpgsql since 2026-12-07 (issue #20's hand-off, #18): as LANGUAGE sql, called from plpgsql,
-- its statement was parsed and planned again on every call (Postgres 15 keeps a SQL
-- function's plan only for the calling statement's run), and so were sluice_release_rows'
-- and sluice_release_keys' above it: a finish that released one row spent 1.6 ms in the
-- three (bench:whatif's workload, pg_stat_user_functions; docs/benchmarks.md, twentieth
-- session). Settings as sluice_claim_rows (its header says why).

CREATE OR REPLACE FUNCTION public.sluice_release_oldest(p_task text, p_keys text[], p_n integer[])
 RETURNS integer
 LANGUAGE plpgsql
 SET plan_cache_mode TO 'force_generic_plan'
 SET enable_seqscan TO 'off'
 SET jit TO 'off'
AS $function$
DECLARE
  v_parts integer[];
  v_ats   timestamp without time zone[];
BEGIN
  WITH released AS (
    UPDATE executions e SET waiting_on = NULL
    WHERE e.ctid = ANY (ARRAY(
      SELECT x.tid FROM unnest(p_keys, p_n) AS r(gk, n)
      CROSS JOIN LATERAL (
        SELECT w.ctid AS tid FROM executions w
        WHERE w.task = p_task AND w.state = 'queued' AND w.waiting_on = r.gk
        ORDER BY w.claim_at, w.id
        LIMIT r.n  -- NULL = no limit
      ) x
    ))
    RETURNING e.partition, e.claim_at
  )
  SELECT array_agg(r.partition), array_agg(r.claim_at) INTO v_parts, v_ats FROM released r;
  IF v_parts IS NULL THEN RETURN 0; END IF;
  PERFORM sluice_claim_floor_lower(p_task, v_parts, v_ats);
  RETURN cardinality(v_parts);
END
$function$;
