-- sluice_release_stranded(task): the reconciler's check and repair of waiting rows
-- (server/db/reconcile-counters.ts, counter `group.waiting_with_room`). Releases, and
-- returns how many, the rows set aside on a key that nothing else will start: per key the
-- oldest (limit − running − claimable) rows waiting on it, where `claimable` counts the
-- key's rows already in the claim index (queued, not waiting, due), which start before any
-- row still waiting on the key. Rate-parked rows and fair-share keys are left to the claim,
-- rows of a group no longer configured are all released, as sluice_release_rows does.
--
-- A claimable row counts even while another of its keys is at its limit (until 2026-12-02
-- it did not): it starts when that key frees, before the waiting row, and its finish then
-- hands the key on — the same order the finish's release keeps. Not counting it, the check
-- took the queue's ordinary state for a stranded row: in W2's shape (tenant limit 20, key
-- limit 1, the tenant full) a row of a free key waiting behind a claimable row of the same
-- key was "released" and logged as an engine bug, 1–3 rows in every bench:soak run.
--
-- Why not sluice_release_waiting (limit − in_flight, the sweep a config apply uses): a
-- finish releases `limit − in_flight` rows, but its cycle's claim may start fewer of them
-- (it claims from its own partitions, up to its free slots), so between two transactions a
-- key can legitimately be below its limit with a released row not yet claimed and the
-- next row still waiting. The sweep counted that row's slot as room and released the
-- waiting one too (an over-release, harmless but logged as an engine bug): the demo's
-- send-email (globex limit 8, 2026-11-25) showed one such "repair" about a minute after
-- every start — globex at 7 running, execution 6797 released by a cycle that claimed one
-- row only, 6798 waiting, reconciler between that cycle and the next claim (which took
-- 6797, and the one after, 6798). test/integration/engine-waiting.test.ts replays it.
--
-- Counts are read from the rows, not from group_slots (the reconciler has just repaired
-- those from the same rows): the task's running rows (executions_running_idx, ≤ its
-- concurrency) and its claimable rows (executions_claim_idx, the task's range), once each.
-- The caller's transaction holds the task_runtime row lock (taken here too, first, as in
-- every engine path), so no claim or finish moves a row between the counts and the update.

CREATE OR REPLACE FUNCTION public.sluice_release_stranded(p_task text)
 RETURNS integer
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_groups jsonb;
  v_keys   text[];
  v_n      integer;
BEGIN
  SELECT t.groups INTO v_groups FROM task_runtime t WHERE t.task = p_task FOR NO KEY UPDATE;
  IF NOT FOUND THEN v_groups := '{}'::jsonb; END IF;
  SELECT array_agg(DISTINCT w.waiting_on) INTO v_keys
  FROM executions w WHERE w.task = p_task AND w.state = 'queued' AND w.waiting_on IS NOT NULL;
  IF v_keys IS NULL THEN RETURN 0; END IF;
  -- The task's running rows and its claimable rows, counted once per key.
  WITH running AS (
    SELECT k.gk, count(*)::integer AS n
    FROM executions e CROSS JOIN LATERAL unnest(e.group_keys) AS k(gk)
    WHERE e.task = p_task AND e.state = 'running'
    GROUP BY k.gk
  ),
  claimable AS (
    SELECT k.gk, count(*)::integer AS n
    FROM executions e CROSS JOIN LATERAL unnest(e.group_keys) AS k(gk)
    WHERE e.task = p_task AND e.state = 'queued' AND e.waiting_on IS NULL AND e.run_at <= now()
      AND k.gk = ANY (v_keys)
    GROUP BY k.gk
  )
  -- room per key: sluice_release_room with the key's running and claimable rows as used
  SELECT sluice_release_oldest(p_task, array_agg(k.gk),
           array_agg(sluice_release_room(v_groups, k.gk, coalesce(r.n, 0) + coalesce(c.n, 0)))) INTO v_n
  FROM unnest(v_keys) AS k(gk)
  LEFT JOIN running r ON r.gk = k.gk
  LEFT JOIN claimable c ON c.gk = k.gk;
  RETURN v_n;
END
$function$;
