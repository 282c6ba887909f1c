-- sluice_release_stranded(task): the reconciler's check and repair of waiting rows
-- (server/db/reconcile-counters.ts, counter `group.waiting_with_room`). Releases, and
-- returns how many, the rows set aside on a key that nothing else will start: per key the
-- oldest (limit − running − claimable) rows waiting on it, where `claimable` counts the
-- key's rows already in the claim index (queued, not waiting, due, no key of theirs at its
-- limit), which the next claims start before any row still waiting. Rate-parked rows and
-- fair-share keys are left to the claim, rows of a group no longer configured are all
-- released, as sluice_release_rows does.
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
  -- The task's running rows counted once per key; keys at their limit now (`sat`): a
  -- claimable row carrying one is skipped by the claim, so it fills no slot of its other keys.
  WITH running AS (
    SELECT k.gk, count(*)::integer AS n
    FROM executions e CROSS JOIN LATERAL unnest(e.group_keys) AS k(gk)
    WHERE e.task = p_task AND e.state = 'running'
    GROUP BY k.gk
  ),
  sat AS (
    SELECT coalesce(array_agg(r.gk) FILTER (
             WHERE r.n >= sluice_group_limit(v_groups, split_part(r.gk, '=', 1), substr(r.gk, strpos(r.gk, '=') + 1))), '{}') AS keys
    FROM running r
  ),
  claimable AS (
    SELECT k.gk, count(*)::integer AS n
    FROM executions e CROSS JOIN LATERAL unnest(e.group_keys) AS k(gk)
    WHERE e.task = p_task AND e.state = 'queued' AND e.waiting_on IS NULL AND e.run_at <= now()
      AND NOT (e.group_keys && (SELECT sat.keys FROM sat)) AND k.gk = ANY (v_keys)
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
