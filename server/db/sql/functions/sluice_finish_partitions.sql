-- sluice_finish_partitions(task, moves): a finish's moves of its partitions' counter rows —
-- in_flight − n, depth + the rows requeued (a retry's backoff, a hand-back keeping its
-- place), and the claim floor down to the first requeued row (a requeued row is claimable
-- again; migration 20261203000100000_claim_floor). `moves` is a jsonb array with one object
-- per partition, {"p": partition, "n": rows finished, "r": rows requeued, "l": the lowest
-- requeued row's claim_at or null}, as sluice_finish_rows builds it. The caller holds the
-- partition_stats rows' locks (the lock order's one sorted pass).
--
-- Callers: sluice_finish_rows when it writes its own counters (a finish alone); and, for a
-- cycle (sluice_cycle: a finish, then a claim, one transaction), sluice_claim_rows for the
-- finishing partitions it did not claim from, or sluice_cycle itself when the claim ended
-- before its counter update. A cycle's finish leaves its moves in the transaction-local
-- setting `sluice.finish_moves` instead, so that a partition it finished and claimed from
-- gets ONE new version of its partition_stats row per cycle, written by the claim with both
-- moves: under a held snapshot every later read of the row walks every version since
-- (bench:soak's hold, 2026-12-07: the row lock 2.1 ms, the two updates 0.79 and 0.73 ms, the
-- floors' read 0.69 ms per cycle; docs/benchmarks.md, twenty-fifth session).
-- plpgsql (its plan kept for the session, generic as the finish's and the claim's), with
-- their settings: enable_seqscan and jit off (sluice_claim_rows.sql says why).
CREATE OR REPLACE FUNCTION public.sluice_finish_partitions(p_task text, p_moves jsonb)
 RETURNS void
 LANGUAGE plpgsql
 SET plan_cache_mode TO 'force_generic_plan'
 SET enable_seqscan TO 'off'
 SET jit TO 'off'
AS $function$
BEGIN
  UPDATE partition_stats ps
  SET in_flight = greatest(ps.in_flight - d.n, 0),
      depth = ps.depth + d.r,
      claim_floor_id = CASE WHEN d.l <= ps.claim_floor THEN 0 ELSE ps.claim_floor_id END,
      claim_floor = least(ps.claim_floor, coalesce(d.l, 'infinity')),
      updated_at = now()
  FROM jsonb_to_recordset(p_moves) AS d(p integer, n integer, r integer, l timestamp without time zone)
  WHERE ps.task = p_task AND ps.partition = d.p;
END
$function$;
