-- sluice_release_rows(task, groups, keys, net): the body of sluice_release_keys, shared with
-- sluice_cycle. Releases rows waiting on the given keys ('group=key'): per key the oldest
-- (limit − in_flight) rows waiting on it, across the task's partitions, in claim order
-- (claim_at, id: priority first, see sluice_claim_rows); every row when the key's group is no
-- longer configured (NULL limit: nothing to wait for). Returns how many rows it released.
-- `net`: the keys are the finished rows' keys, one entry per finished row, whose group_slots
-- decrements are not written yet (sluice_cycle writes them with the claim's in one upsert):
-- each key's room is counted net of them. Otherwise the counters are current.
-- The caller holds the task_runtime row lock (sluice_finish_rows, sluice_release_waiting,
-- sluice_cycle), so the rows found are current when updated by ctid. One LATERAL probe of
-- executions_waiting_idx and one of group_slots per key: the cost follows the keys
-- released, not the number of keys or waiting rows.
-- Why rows wait at all: sluice_claim_rows.sql and docs/architecture.md § "Claiming" (4).
-- A fair-share group's keys (`order: fair`, #19) are released by the claim, not here.
-- Rate limits (#19): a row parked on a key's rate ('rate:group=key') is released by the
-- claim when the key's next slot comes, not here: 0 rows while the key's group still has a
-- rate, every row once it has none (the config dropped it).

CREATE OR REPLACE FUNCTION public.sluice_release_rows(p_task text, p_groups jsonb, p_keys text[], p_net boolean)
 RETURNS integer
 LANGUAGE sql
AS $function$
  -- room per key: sluice_release_room (fair share, rate-parked rows, a dropped group); `net`
  -- counts the finished rows' slots as already free
  SELECT sluice_release_oldest(p_task, array_agg(k.gk),
           array_agg(sluice_release_room(p_groups, k.gk,
             CASE WHEN p_net THEN greatest(coalesce(s.in_flight, 0) - k.fin, 0) ELSE coalesce(s.in_flight, 0) END)))
  FROM (SELECT gk, count(*)::integer AS fin FROM unnest(p_keys) AS gk GROUP BY gk) k
  LEFT JOIN LATERAL (
    SELECT g.in_flight FROM group_slots g
    WHERE g.task = p_task AND g.group_name = split_part(k.gk, '=', 1) AND g.group_key = substr(k.gk, strpos(k.gk, '=') + 1)
    LIMIT 1
  ) s ON true
$function$;
