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
  WITH room AS (
    SELECT k.gk, CASE WHEN k.gk LIKE 'rate:%' THEN
                        CASE WHEN sluice_key_rate(p_groups, split_part(substr(k.gk, 6), '=', 1), p.gkey) IS NULL THEN NULL ELSE 0 END
                      WHEN l.lim IS NULL THEN NULL
                      -- fair share (issue #19): the claim gives a fair key's rows back (when the key
                      -- falls below its share, or nothing else can use a slot); a finish releasing up
                      -- to the limit re-clogged the head (2 coordinators, 90% flood: t0 40%)
                      WHEN p_groups -> p.gname ? 'fair' THEN 0
                      WHEN p_net THEN greatest(l.lim - greatest(coalesce(s.in_flight, 0) - k.fin, 0), 0)
                      ELSE greatest(l.lim - coalesce(s.in_flight, 0), 0) END AS n
    FROM (SELECT gk, count(*)::integer AS fin FROM unnest(p_keys) AS gk GROUP BY gk) k
    CROSS JOIN LATERAL (SELECT split_part(k.gk, '=', 1) AS gname, substr(k.gk, strpos(k.gk, '=') + 1) AS gkey) p
    CROSS JOIN LATERAL (SELECT sluice_group_limit(p_groups, p.gname, p.gkey) AS lim) l
    LEFT JOIN LATERAL (
      SELECT g.in_flight FROM group_slots g WHERE g.task = p_task AND g.group_name = p.gname AND g.group_key = p.gkey
      LIMIT 1
    ) s ON true
  ),
  released AS (
    UPDATE executions e SET waiting_on = NULL
    WHERE e.ctid = ANY (ARRAY(
      SELECT x.tid FROM room r
      CROSS JOIN LATERAL (
        SELECT w.ctid AS tid FROM executions w
        WHERE w.task = p_task AND w.state = 'queued' AND w.waiting_on = r.gk
        ORDER BY w.claim_at, w.id
        LIMIT r.n  -- NULL = no limit
      ) x
    ))
    RETURNING 1
  )
  SELECT count(*)::integer FROM released
$function$;
