-- sluice_fold_slots(task, wait): adds the task's logged slot counter moves (slot_deltas,
-- written by sluice_claim_rows and sluice_finish_rows) into group_slots and deletes them,
-- in one transaction, so each is added exactly once and group_slots + the rows not yet
-- folded are the true counts at every commit. Returns how many delta rows it folded.
--
-- Outside the task lock: it takes no task_runtime or partition_stats row, only the delta
-- rows (SKIP LOCKED unless `wait`) and then the group_slots rows of their keys, sorted by
-- (group, key) as every other writer of group_slots takes them (the enqueue's +queued
-- upsert, the cancel's and the drain's −queued, the reconciler), so it can wait for an
-- enqueue but never close a cycle of waits. Callers:
--  * the coordinator that logged them (server/coordinator/slot-folder.ts), at most every
--    slotFoldMs after its claims and finishes: many cycles' moves of one key become one
--    counter update, off the critical path of the claim;
--  * the slot-fold maintenance service (a member that died before folding);
--  * the reconciler, with `wait` (it holds the task lock, so no claim or finish of the
--    task logs meanwhile; waiting for a concurrent fold's rows means it counts after that
--    fold committed, never beside it — with SKIP LOCKED it could read group_slots before
--    the other fold's update and "repair" what that update then added again).
-- Keys whose moves sum to zero (claimed and finished within the fold) are not written.
-- The sums may make a counter negative for a moment (a cancel's −queued applied before
-- the fold of the retry that requeued the row): the sum is right once the fold lands, so
-- nothing clamps. A row created here starts at the sums: slot GC deletes only rows at
-- (0, 0), whose unfolded moves then sum to the true counts; a row that vanished by other
-- hands (a hand-edited table) comes back wrong, possibly negative, and the reconciler
-- repairs it and logs the mismatch (until 2026-12-02 the finish's upsert guessed 0).
-- Why the moves are logged instead of written under the lock: prisma/migrations
-- 20261202000100000_slot_deltas and docs/benchmarks.md (fourteenth session).

-- enable_seqscan off: plans made while a table was a few pages long must not be seq scans
-- kept for the session (sluice_claim_rows.sql says why and what was measured).
-- jit off: with seq scans off, a plan left with no other path would be JIT-compiled on
-- every call (sluice_claim_rows.sql says why and what was measured).
CREATE OR REPLACE FUNCTION public.sluice_fold_slots(p_task text, p_wait boolean)
 RETURNS integer
 LANGUAGE plpgsql
 SET plan_cache_mode TO 'force_generic_plan'
 SET enable_seqscan TO 'off'
 SET jit TO 'off'
AS $function$
DECLARE
  v_ids bigint[];
BEGIN
  IF p_wait THEN
    SELECT array_agg(d.id) INTO v_ids FROM (
      SELECT s.id FROM slot_deltas s WHERE s.task = p_task ORDER BY s.id FOR UPDATE
    ) d;
  ELSE
    SELECT array_agg(d.id) INTO v_ids FROM (
      SELECT s.id FROM slot_deltas s WHERE s.task = p_task ORDER BY s.id LIMIT 1000 FOR UPDATE SKIP LOCKED
    ) d;
  END IF;
  IF v_ids IS NULL THEN RETURN 0; END IF;
  WITH taken AS (
    DELETE FROM slot_deltas s WHERE s.id = ANY (v_ids)
    RETURNING s.keys, s.d_in_flight, s.d_queued
  ),
  net AS (
    SELECT k.gk, sum(t.d_in_flight)::integer AS din, sum(t.d_queued)::integer AS dq
    FROM taken t CROSS JOIN LATERAL unnest(t.keys) AS k(gk)
    GROUP BY k.gk
  )
  INSERT INTO group_slots AS gs (task, group_name, group_key, in_flight, queued, last_used_at)
  SELECT p_task, split_part(n.gk, '=', 1), substr(n.gk, strpos(n.gk, '=') + 1), n.din, n.dq, now()
  FROM net n WHERE n.din <> 0 OR n.dq <> 0
  ORDER BY 2, 3
  ON CONFLICT (task, group_name, group_key) DO UPDATE
    SET in_flight = gs.in_flight + excluded.in_flight, queued = gs.queued + excluded.queued, last_used_at = now();
  RETURN cardinality(v_ids);
END
$function$;
