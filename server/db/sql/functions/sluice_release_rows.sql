-- sluice_release_rows(task, groups, keys, net): the body of sluice_release_keys (finishes,
-- the config sweep sluice_release_waiting). Releases rows waiting on the given keys
-- ('group=key', repeats allowed): per key the oldest (limit − running) rows waiting on it,
-- across the task's partitions, in claim order (claim_at, id: priority first, see
-- sluice_claim_rows); every row when the key's group is no longer configured (NULL limit:
-- nothing to wait for). Returns how many rows it released.
-- `running` is counted from the task's running rows (executions_running_idx from the
-- task's running floor, at most the task's concurrency live rows, one pass for all keys), as
-- the claim counts keys in use — not
-- from group_slots.in_flight, which lags the engine by the moves not yet folded
-- (slot_deltas, sluice_fold_slots.sql): a lagging count would strand rows (room under-counted
-- while a finish's −1 waits to be folded). Rows already finished in this transaction are
-- not running, so a finish's freed slots count without anything passed in; `net` (the
-- cycle's old "room net of the finish's decrements") no longer changes anything and stays
-- for the signature.
-- The caller holds the task_runtime row lock (sluice_finish_rows, sluice_release_waiting),
-- so the rows found are current when updated by ctid. One LATERAL probe of
-- executions_waiting_idx per key.
-- Why rows wait at all: sluice_claim_rows.sql and docs/architecture.md § "Claiming" (4).
-- A fair-share group's keys (`order: fair`, #19) are released by the claim, not here.
-- Rate limits (#19): a row parked on a key's rate ('rate:group=key') is released by the
-- claim when the key's next slot comes, not here: 0 rows while the key's group still has a
-- rate, every row once it has none (the config dropped it).
-- plpgsql with cached generic plans since 2026-12-07 (sluice_release_oldest.sql says why).

CREATE OR REPLACE FUNCTION public.sluice_release_rows(p_task text, p_groups jsonb, p_keys text[], p_net boolean)
 RETURNS integer
 LANGUAGE plpgsql
 SET plan_cache_mode TO 'force_generic_plan'
 SET enable_seqscan TO 'off'
 SET jit TO 'off'
AS $function$
DECLARE
  v_keys text[];
  v_n    integer[];
BEGIN
  -- room per key: sluice_release_room (fair share, rate-parked rows, a dropped group)
  SELECT array_agg(k.gk), array_agg(sluice_release_room(p_groups, k.gk, coalesce(r.n, 0))) INTO v_keys, v_n
  FROM (SELECT DISTINCT gk FROM unnest(p_keys) AS gk) k
  LEFT JOIN (
    SELECT u.gk, count(*)::integer AS n
    FROM executions e CROSS JOIN LATERAL unnest(e.group_keys) AS u(gk)
    WHERE e.task = p_task AND e.state = 'running'
      AND e.started_at >= (SELECT t.running_floor FROM task_counters t WHERE t.task = p_task)  -- the rows with a key started since
    GROUP BY u.gk
  ) r ON r.gk = k.gk;
  IF v_keys IS NULL THEN RETURN 0; END IF;
  RETURN sluice_release_oldest(p_task, v_keys, v_n);
END
$function$;
