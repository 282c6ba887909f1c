-- sluice_cycle(coordinator, task, max, lease_ms, <sluice_finish arrays>): the
-- coordinator's busy cycle. Runs sluice_finish and then sluice_claim in ONE transaction
-- (one call, one commit), so the slots a batch frees are refilled in the same round trip
-- (server/db/finish-and-claim-executions.ts calls it from the completer).
--
-- Guarantees are those of the two functions, unchanged:
--  * fencing: sluice_finish matches (id, lease_token, state = running);
--  * never claim beyond free slots: `max` is the caller's free local slots (counting the
--    rows being finished here); sluice_claim caps it by concurrency − in_flight under the
--    task_runtime lock, and sluice_finish already lowered in_flight in this transaction,
--    so the cluster-wide limit is read exactly; group limits see the released counts;
--  * lock order: a finish followed by a claim would take partition_stats rows in two
--    passes (the finish's rows, then the claim's), and an enqueue — which takes
--    partition_stats → group_slots in order and never the task lock — deadlocked with
--    it: the cycle held partition 5's counter row and waited for partition 2's, the
--    enqueue held 2 and waited for 5 (40P01 in bench:soak, 2026-11-24). So when it both
--    finishes and claims, the cycle first locks the task_runtime row, then the
--    partition_stats rows of every partition it may touch — the finishing rows' and those
--    it owns, which are all the claim may claim from — in partition order, in one pass;
--    the claim is confined to those partitions (p_parts). Neither takes a group_slots row
--    (below). A cycle that only finishes or only claims is one pass already. test/integration/engine-cycle-deadlock.test.ts
--    replays both interleavings.
--  * the task's in_flight (2026-12-03): one update per cycle. The finish leaves its −n to
--    the claim (sluice_finish_rows' defer_slots), which counts those slots free and moves
--    −n and its own +m in the update it makes anyway; a claim that claims nothing leaves it
--    to this function. Two updates of the row per cycle were two versions, and under a held
--    snapshot every read of the row walks every version since (~1,200 buffers a read 25 s
--    into bench:soak's hold, 5–7 reads a cycle; docs/benchmarks.md, eighteenth session).
--    Since 2026-12-07 the row is task_counters' (~60 bytes a version, against task_runtime's
--    1,669 for the soak's task), and task_runtime's row, whose lock is the task lock, is no
--    longer updated per cycle (migration 20261207000100000_task_counters).
--  * the partition_stats rows (2026-12-07): the finish leaves its moves of them to the claim
--    (transaction-local setting sluice.finish_moves), which writes them with its own in one
--    update of each row it claims from and the rest after it; a claim that ended before its
--    counter update leaves them to this function. One version of the row per cycle instead
--    of two (sluice_finish_partitions.sql says why).
--  * slot counters (2026-12-02): neither half writes group_slots; each logs its moves
--    (slot_deltas) and sluice_fold_slots adds them in later, outside the task lock. Until
--    then a grouped task's cycle ended in one sorted upsert of every key it finished or
--    claimed (~860 rows per 100-job W7 cycle, 4.5 of the 13.6 ms it held the task lock);
--    the release of rows waiting on freed keys and the promotion of finished stream heads
--    happened after the claim for its sake, and now happen in the finish for grouped and
--    ungrouped tasks alike (the release counts running rows, which the finish has moved).
--    So a grouped task's finished stream head's successor is claimable in the same cycle.
--
-- Lean reply, since it is the hottest call there is: only the ids that did NOT take
-- effect (fenced: the lease was lost; an applied item took the outcome it asked for),
-- normally none, with every other column NULL; then the claimed rows with the 8 columns
-- a coordinator uses (its lease_token is never NULL). The run_at, error, stack and
-- fingerprint arrays may each be NULL (a batch of successes): the client then sends one
-- NULL instead of an array of NULLs.
--
-- Measured (docs/benchmarks.md pass 4, single coordinator × 32 slots, no-op handlers):
-- about 0.2 ms less per 32-job cycle between client and server than the previous reply
-- (sluice_finish_and_claim's 13-column row per finished execution); W1 13.0–13.2k →
-- 15.1–17.7k jobs/s together with sluice_hist_add in plpgsql. Two writes in flight (two
-- half-size batches overlapping) measured slower (12.9–14.3k vs 15.1–17.7k): both queue
-- on the task lock and the ~0.5 ms per-call cost counts twice per 32 jobs.
-- Introduced by prisma/migrations/20261123000800000_lean_cycle, which kept
-- sluice_finish_and_claim for the previous release's coordinators; that one is dropped by
-- 20261124000100000_drop_finish_and_claim (docs/architecture.md § "Database functions").

-- enable_seqscan off: plans made while executions was a few pages long must not be
-- seq scans kept for the session (sluice_claim_rows.sql says why and what was measured).
-- jit off: with seq scans off, a plan left with no other path would be JIT-compiled on
-- every call (sluice_claim_rows.sql says why and what was measured).
CREATE OR REPLACE FUNCTION public.sluice_cycle(p_coordinator uuid, p_task text, p_max integer, p_lease_ms integer, p_ids bigint[], p_tokens uuid[], p_outcomes text[], p_run_at timestamp with time zone[], p_errors text[], p_stacks text[], p_fingerprints text[])
 RETURNS TABLE(id bigint, partition integer, attempts integer, payload jsonb, groups jsonb, stream_key text, idempotency_key text, lease_token uuid)
 LANGUAGE plpgsql
 SET plan_cache_mode TO 'force_generic_plan'
 SET enable_seqscan TO 'off'
 SET jit TO 'off'
AS $function$
#variable_conflict use_column
DECLARE
  v_applied bigint[];
  v_n       integer := coalesce(cardinality(p_ids), 0);
  v_parts   integer[];
  v_claimed integer;
  v_moves   jsonb;
BEGIN
  IF v_n > 0 AND p_max > 0 THEN
    PERFORM 1 FROM task_runtime t WHERE t.task = p_task FOR NO KEY UPDATE;
    SELECT array_agg(x.part ORDER BY x.part) INTO v_parts FROM (
      SELECT o.partition AS part FROM partition_owners o WHERE o.owner = p_coordinator AND o.task = p_task
      UNION
      SELECT e.partition FROM executions e WHERE e.id = ANY (p_ids)
    ) x;
    PERFORM 1 FROM partition_stats ps WHERE ps.task = p_task AND ps.partition = ANY (v_parts)
    ORDER BY ps.partition FOR NO KEY UPDATE;
  END IF;
  IF v_n > 0 THEN
    -- Multi-argument unnest pads a NULL (or shorter) array with NULLs, so NULL arrays
    -- stand for "NULL for every item" in sluice_finish.
    SELECT coalesce(array_agg(f.id), '{}') INTO v_applied
    FROM sluice_finish_rows(p_task, p_ids, p_tokens, p_outcomes, coalesce(p_run_at, '{}'), coalesce(p_errors, '{}'),
                            coalesce(p_stacks, '{}'), coalesce(p_fingerprints, '{}'), false, 0, p_max > 0) f;
    IF cardinality(v_applied) < v_n THEN
      RETURN QUERY
      SELECT i.id, NULL::integer, NULL::integer, NULL::jsonb, NULL::jsonb, NULL::text, NULL::text, NULL::uuid
      FROM unnest(p_ids) AS i(id) WHERE i.id <> ALL (v_applied);
    END IF;
  END IF;
  IF p_max > 0 THEN
    RETURN QUERY
    SELECT c.id, c.partition, c.attempts, c.payload, c.groups, c.stream_key, c.idempotency_key, c.lease_token
    FROM sluice_claim_rows(p_coordinator, p_task, p_max, p_lease_ms, CASE WHEN v_n > 0 THEN coalesce(v_parts, '{}') END,
                           coalesce(cardinality(v_applied), 0)) c;
    -- a claim that claimed nothing left the finished rows' in_flight to us
    GET DIAGNOSTICS v_claimed = ROW_COUNT;
    IF v_claimed = 0 AND cardinality(v_applied) > 0 THEN
      UPDATE task_counters t SET in_flight = greatest(t.in_flight - cardinality(v_applied), 0) WHERE t.task = p_task;
    END IF;
    -- … and its partitions' moves, when it ended before writing them (the claim clears them)
    IF v_n > 0 THEN
      v_moves := nullif(current_setting('sluice.finish_moves', true), '')::jsonb;
      IF v_moves IS NOT NULL THEN
        PERFORM sluice_finish_partitions(p_task, v_moves);
        PERFORM set_config('sluice.finish_moves', '', true);
      END IF;
    END IF;
  END IF;
END
$function$;
