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
--  * lock order: a finish followed by a claim would take partition_stats and group_slots
--    in two passes (the finish's rows, then the claim's), and an enqueue — which takes
--    partition_stats → group_slots in order and never the task lock — deadlocked with
--    it: the cycle held partition 5's counter row and waited for partition 2's, the
--    enqueue held 2 and waited for 5 (40P01 in bench:soak, 2026-11-24). So when it both
--    finishes and claims, the cycle first locks the task_runtime row, then the
--    partition_stats rows of every partition it may touch — the finishing rows' and those
--    it owns, which are all the claim may claim from — in partition order, in one pass;
--    the claim is confined to those partitions (p_parts) and takes group_slots rows
--    without waiting (sluice_claim_rows' p_after_finish). A cycle that only finishes or
--    only claims is one pass already. test/integration/engine-cycle-deadlock.test.ts
--    replays both interleavings.
--  * one slot upsert (grouped task, finish and claim in one call): sluice_finish_rows runs
--    with defer_slots and sluice_claim_rows with after_finish, so neither touches
--    group_slots; the cycle then moves both batches' counters in ONE upsert sorted by
--    (group, key) — a key finished and claimed in the same cycle is written once. Rows
--    waiting on the freed keys are released before the claim (room counted net of the
--    finish's decrements), finished stream heads promoted after the upsert (group_slots
--    before the streams' advisory locks, as everywhere). The upsert waits
--    for a slot row a producer holds (the producer takes its rows in the same order and
--    waits for nothing the cycle holds: its partition_stats rows are others', since the
--    cycle locked its own first); until 2026-11-24 the claim skipped such keys instead
--    and the finish and the claim each ran an upsert. A stream head's successor, promoted
--    after the claim now, is claimed by the next cycle in a grouped task.
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
  v_groups  jsonb;
  v_defer   boolean := false;
  v_fgks    text[];
  v_fouts   text[];
  v_streams text[];
  v_new     text[];
  v_cids    bigint[];
  v_cparts  integer[];
  v_catt    integer[];
  v_cpay    jsonb[];
  v_cgroups jsonb[];
  v_cstream text[];
  v_cidem   text[];
  v_ctoken  uuid[];
BEGIN
  IF v_n > 0 AND p_max > 0 THEN
    SELECT t.groups INTO v_groups FROM task_runtime t WHERE t.task = p_task FOR NO KEY UPDATE;
    v_defer := coalesce(v_groups <> '{}'::jsonb, false);
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
    SELECT coalesce(array_agg(f.id) FILTER (WHERE f.id IS NOT NULL), '{}'),
           coalesce(array_agg(f.slot_key) FILTER (WHERE f.slot_key IS NOT NULL), '{}'),
           coalesce(array_agg(f.outcome) FILTER (WHERE f.slot_key IS NOT NULL), '{}'),
           coalesce(array_agg(f.stream_key) FILTER (WHERE f.stream_key IS NOT NULL), '{}')
    INTO v_applied, v_fgks, v_fouts, v_streams
    FROM sluice_finish_rows(p_task, p_ids, p_tokens, p_outcomes, coalesce(p_run_at, '{}'), coalesce(p_errors, '{}'),
                            coalesce(p_stacks, '{}'), coalesce(p_fingerprints, '{}'), false, 0, v_defer) f;
    IF cardinality(v_applied) < v_n THEN
      RETURN QUERY
      SELECT i.id, NULL::integer, NULL::integer, NULL::jsonb, NULL::jsonb, NULL::text, NULL::text, NULL::uuid
      FROM unnest(p_ids) AS i(id) WHERE i.id <> ALL (v_applied);
    END IF;
  END IF;
  IF p_max > 0 AND NOT v_defer THEN
    RETURN QUERY
    SELECT c.id, c.partition, c.attempts, c.payload, c.groups, c.stream_key, c.idempotency_key, c.lease_token
    FROM sluice_claim_rows(p_coordinator, p_task, p_max, p_lease_ms, CASE WHEN v_n > 0 THEN coalesce(v_parts, '{}') END, false) c;
  ELSIF v_defer THEN
    -- Rows waiting on a key the finish freed become claimable before the claim, as many
    -- as the key has room for (sluice_release_rows with `net`: the room counted net of
    -- the finish's decrements, which group_slots does not hold yet), so this
    -- claim can take them as it did when the finish released them itself. One probe of
    -- the waiting index when the task has no waiting rows.
    IF cardinality(v_fgks) > 0 AND EXISTS (
      SELECT 1 FROM executions w WHERE w.task = p_task AND w.state = 'queued' AND w.waiting_on IS NOT NULL
      ORDER BY w.waiting_on, w.claim_at, w.id LIMIT 1  -- executions_waiting_idx's order: never a seq scan
    ) THEN
      PERFORM sluice_release_rows(p_task, v_groups, v_fgks, true);
    END IF;
    -- The claim without its slot counters, its rows kept for the reply (claim order).
    SELECT array_agg(c.id ORDER BY c.ord), array_agg(c.partition ORDER BY c.ord), array_agg(c.attempts ORDER BY c.ord),
           array_agg(c.payload ORDER BY c.ord), array_agg(c.groups ORDER BY c.ord), array_agg(c.stream_key ORDER BY c.ord),
           array_agg(c.idempotency_key ORDER BY c.ord), array_agg(c.lease_token ORDER BY c.ord)
    INTO v_cids, v_cparts, v_catt, v_cpay, v_cgroups, v_cstream, v_cidem, v_ctoken
    FROM sluice_claim_rows(p_coordinator, p_task, p_max, p_lease_ms, coalesce(v_parts, '{}'), true)
      WITH ORDINALITY AS c(id, task, partition, attempts, payload, groups, stream_key, idempotency_key, lease_token, enqueued_at, run_at, ord);
    -- One sorted upsert for both. The proposed row carries each key's net change,
    -- in_flight = claimed − finished and queued = requeued (retry/release) − claimed, and
    -- an existing row takes in_flight = greatest(in_flight + net, 0), queued =
    -- greatest(queued + net, 0): what the finish's upsert followed by the claim's wrote
    -- (greatest(in_flight − finished, 0) + claimed, greatest(queued + requeued − claimed,
    -- 0)) whenever in_flight ≥ finished, i.e. whenever the counter was right (a drifted
    -- one is the reconciler's to repair either way). One number per column, so no lookup
    -- per row (a jsonb map of the finish's counts cost ~2.6 ms per 1,000 lookups).
    -- A slot row inserted here (it vanished: a hand-edited table) is set right after.
    WITH d AS (
      SELECT k.gk, count(*) FILTER (WHERE k.c = 1)::integer AS claimed, count(*) FILTER (WHERE k.c = 0)::integer AS fin,
             count(*) FILTER (WHERE k.c = 0 AND k.o IN ('retry', 'release'))::integer AS req
      FROM (
        SELECT j.k || '=' || j.v AS gk, 1 AS c, NULL::text AS o
        FROM unnest(v_cgroups) AS g(doc) CROSS JOIN LATERAL jsonb_each_text(g.doc) AS j(k, v)
        UNION ALL
        SELECT f.gk, 0, f.o FROM unnest(v_fgks, v_fouts) AS f(gk, o)
      ) k GROUP BY k.gk
    ),
    up AS (
      INSERT INTO group_slots AS gs (task, group_name, group_key, in_flight, queued, last_used_at)
      SELECT p_task, split_part(d.gk, '=', 1), substr(d.gk, strpos(d.gk, '=') + 1), d.claimed - d.fin, d.req - d.claimed, now()
      FROM d ORDER BY 2, 3
      ON CONFLICT (task, group_name, group_key) DO UPDATE
        SET in_flight = greatest(gs.in_flight + excluded.in_flight, 0), queued = greatest(gs.queued + excluded.queued, 0),
            last_used_at = now()
      RETURNING gs.group_name || '=' || gs.group_key AS gk, (gs.xmax = 0) AS inserted
    )
    SELECT coalesce(array_agg(up.gk) FILTER (WHERE up.inserted), '{}') INTO v_new FROM up;
    IF cardinality(v_new) > 0 THEN
      UPDATE group_slots gs SET in_flight = x.claimed, queued = greatest(x.req - x.claimed, 0)
      FROM (
        SELECT k.gk, count(*) FILTER (WHERE k.c = 1)::integer AS claimed,
               count(*) FILTER (WHERE k.c = 0 AND k.o IN ('retry', 'release'))::integer AS req
        FROM (
          SELECT j.k || '=' || j.v AS gk, 1 AS c, NULL::text AS o
          FROM unnest(v_cgroups) AS g(doc) CROSS JOIN LATERAL jsonb_each_text(g.doc) AS j(k, v)
          UNION ALL
          SELECT f.gk, 0, f.o FROM unnest(v_fgks, v_fouts) AS f(gk, o)
        ) k WHERE k.gk = ANY (v_new) GROUP BY k.gk
      ) x
      WHERE gs.task = p_task AND gs.group_name = split_part(x.gk, '=', 1) AND gs.group_key = substr(x.gk, strpos(x.gk, '=') + 1);
    END IF;
    -- Then the successors of finished stream heads (the streams' advisory locks come
    -- after group_slots in the lock order, so after the upsert).
    IF cardinality(v_streams) > 0 THEN
      PERFORM sluice_promote_streams(p_task, v_streams);
    END IF;
    RETURN QUERY
    SELECT c.id, c.partition, c.attempts, c.payload, c.groups, c.stream_key, c.idempotency_key, c.lease_token
    FROM unnest(v_cids, v_cparts, v_catt, v_cpay, v_cgroups, v_cstream, v_cidem, v_ctoken)
      AS c(id, partition, attempts, payload, groups, stream_key, idempotency_key, lease_token);
  END IF;
END
$function$;
