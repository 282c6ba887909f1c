-- sluice_finish_rows(task, ids, tokens, outcomes, run_at, errors, stacks, fingerprints,
-- only_expired, stale_ms, defer_slots): the body of sluice_finish (whose header comment
-- below holds for it). sluice_finish(…) is this with defer_slots false and only the
-- (id, outcome) rows.
--
-- Slot counters (2026-12-02, issue #23): the finish no longer writes group_slots. It
-- appends what it moved to slot_deltas — the finished rows' keys (−1 in_flight) and the
-- requeued rows' keys (−1 in_flight, +1 queued), one row each — and sluice_fold_slots adds
-- them in later, outside the task lock (prisma/migrations 20261202000100000_slot_deltas).
-- The release of rows waiting on the freed keys counts each key's running rows
-- (sluice_release_rows), which this function has already moved, so it runs here in every
-- call; so does the promotion of finished stream heads (no group_slots row is taken any
-- more, so nothing has to come before the streams' advisory locks). defer_slots, which made
-- sluice_cycle do both after its claim (and write both batches' counters in one upsert),
-- now means the task's in_flight move is the caller's (2026-12-03, issue #18):
-- sluice_cycle moves it once with its claim's, the finished −n and the claimed +m as one
-- update of the row, so a cycle adds one version of it instead of two (under a held snapshot
-- every later read of the row walks them all: ~1,200 buffers a read 25 s into bench:soak's
-- hold; the row is task_counters' since 2026-12-07, narrow, and task_runtime's is no longer
-- updated per cycle); that the caller (sluice_cycle) holds the partition_stats rows of every
-- finishing row's partition already (not locked again here); and that the partitions' moves
-- are the claim's to write with its own (left in the transaction-local setting
-- sluice.finish_moves; sluice_finish_partitions.sql says why, 2026-12-07). The reply's slot_key and
-- stream_key columns are always NULL.
-- Reply: one row per finished execution (as sluice_finish).
--
-- (sluice_finish's header:) sluice_finish(task, ids, tokens, outcomes, run_at, errors, stacks, fingerprints,
-- only_expired, stale_ms): finish a batch of running executions of one task:
-- succeeded; retry (back to queued at run_at; a stream head stays the head); dead (plus
-- a dead_letters row and an execution_attempts row); release (shutdown: back to queued
-- with its run_at kept, the attempt not counted, so a drained coordinator's work keeps
-- its place). Matches on (id, lease_token, state = running): a completion from a lost
-- lease matches nothing (fenced). Returns the ids it finished; the caller learns which
-- were fenced by their absence.
-- canceled: an operator's cancel aborted the handler (services/execution-actions.ts);
-- finished_at set, attempts kept, no attempt row, no dead letter, no latency sample,
-- canceled_total counted. And a row with cancel_requested_at finishes as canceled whatever
-- failure the runner reports (retry, dead, release: the abort made its handler fail, and a
-- canceled execution must not run again); succeeded stays succeeded (the handler completed
-- before it saw the abort). The reply's outcome is the effective one. The cancel leaves a
-- running row running until this finish so that its slots and stream are never free while
-- its handler may still run (migration 20261124000300000 says why).
-- only_expired: the lease rescuer's variant, finishing only rows whose lease ran out or
-- whose owner is gone (stale heartbeat), re-checked here under the row lock.
--
-- In one transaction, in the engine's lock order (task_runtime → executions →
-- partition_stats sorted → stream advisory locks sorted; no group_slots row): the
-- executions update, the attempt and dead-letter inserts, counters (task in_flight,
-- partition depth/in_flight, and in partition_outcomes the totals and the latency
-- histograms via sluice_hist_add; the
-- slot counter moves logged, above), the release of rows waiting on the keys it freed
-- (sluice_release_keys: every finish of a running row of the task goes through here, which
-- is what keeps waiting rows live), and the promotion of each finished stream head's
-- successor under the stream's advisory lock.
--
-- Generic plans, for the claim's reasons (see sluice_claim.sql): updates by primary key
-- (the state test written IS NOT DISTINCT FROM so executions_running_idx cannot be
-- chosen and joined against the whole batch: 5 ms per 100 rows before), the "any waiting
-- rows?" probe in executions_waiting_idx's order (never a seq scan).
--
-- Measured (docs/benchmarks.md passes 2–4): at 32 jobs per cycle 0.55–0.61 ms in Postgres
-- after sluice_hist_add became plpgsql (0.69 before). The slot counters were one sorted
-- upsert here until 2026-12-02 (now slot_deltas; the figures: docs/benchmarks.md,
-- fourteenth session).
-- History before this file: prisma/migrations 20261123000200000_engine (first),
-- …0600000_waiting_rows, …0700000_hot_slots (this definition).

-- enable_seqscan off: plans made while executions was a few pages long must not be
-- seq scans kept for the session (sluice_claim_rows.sql says why and what was measured).
-- jit off: with seq scans off, a plan left with no other path would be JIT-compiled on
-- every call (sluice_claim_rows.sql says why and what was measured).
CREATE OR REPLACE FUNCTION public.sluice_finish_rows(p_task text, p_ids bigint[], p_tokens uuid[], p_outcomes text[], p_run_at timestamp with time zone[], p_errors text[], p_stacks text[], p_fingerprints text[], p_only_expired boolean, p_stale_ms integer, p_defer_slots boolean)
 RETURNS TABLE(id bigint, outcome text, slot_key text, stream_key text)
 LANGUAGE plpgsql
 SET plan_cache_mode TO 'force_generic_plan'
 SET enable_seqscan TO 'off'
 SET jit TO 'off'
AS $function$
#variable_conflict use_column
DECLARE
  v_ids       bigint[];
  v_outcomes  text[];
  v_parts     integer[];
  v_buckets   integer[];
  v_wait_b    integer[];
  v_run_b     integer[];
  v_lows      timestamp without time zone[];
  v_done_gks  text[];
  v_req_gks   text[];
  v_streams   text[];
  v_groups    jsonb;
  v_dead      bigint[];          -- the rows that died: their dead letters (below)
  v_moves     jsonb;             -- the partitions' counter moves (sluice_finish_partitions)
BEGIN
  IF EXISTS (SELECT 1 FROM unnest(p_outcomes) o WHERE o IS NULL OR o NOT IN ('succeeded', 'retry', 'dead', 'release', 'canceled')) THEN
    RAISE EXCEPTION 'sluice_finish: outcomes must be succeeded, retry, dead, release or canceled' USING ERRCODE = '22023';
  END IF;
  SELECT t.groups INTO v_groups FROM task_runtime t WHERE t.task = p_task FOR NO KEY UPDATE;

  WITH input AS (
    SELECT * FROM unnest(p_ids, p_tokens, p_outcomes, p_run_at, p_errors, p_stacks, p_fingerprints)
      AS i(id, token, outcome, run_at, error, stack, fingerprint)
  ),
  upd AS (
    UPDATE executions e
    -- The effective outcome: a cancel request (e.cancel_requested_at, set under the task
    -- lock this function holds) turns any failure or hand-back into `canceled`; written on
    -- the row being updated so the statement keeps its primary-key plan.
    SET state = CASE WHEN e.cancel_requested_at IS NOT NULL AND i.outcome <> 'succeeded' THEN 'canceled'
                     WHEN i.outcome IN ('succeeded', 'dead', 'canceled') THEN i.outcome ELSE 'queued' END,
        run_at = CASE WHEN i.outcome = 'retry' AND e.cancel_requested_at IS NULL THEN i.run_at ELSE e.run_at END,  -- a release keeps its place
        attempts = CASE WHEN i.outcome = 'release' AND e.cancel_requested_at IS NULL THEN e.attempts - 1 ELSE e.attempts END,
        finished_at = CASE WHEN i.outcome IN ('succeeded', 'dead', 'canceled') OR e.cancel_requested_at IS NOT NULL THEN now() END,
        last_error = CASE WHEN i.outcome IN ('retry', 'dead') AND e.cancel_requested_at IS NULL THEN i.error ELSE e.last_error END,
        lease_token = NULL, lease_expires_at = NULL  -- lease_owner stays: the last runner
    FROM input i
    -- By primary key: `IS NOT DISTINCT FROM` (the same test as `=`, state is NOT NULL)
    -- keeps the planner from using executions_running_idx, whose rows (every task's
    -- running executions) it otherwise joined against the whole input batch.
    WHERE e.id = i.id AND e.lease_token = i.token AND e.state IS NOT DISTINCT FROM 'running' AND e.task = p_task
      AND (NOT p_only_expired OR e.lease_expires_at < now() OR NOT EXISTS (
            SELECT 1 FROM coordinators c
            WHERE c.id = e.lease_owner AND c.stopped_at IS NULL
              AND c.last_heartbeat_at >= now() - make_interval(secs => p_stale_ms / 1000.0)))
    -- only what this function reads of the rows below (the dead letters read theirs back by
    -- primary key since 2026-12-07, so the payload is not copied into this CTE per row)
    RETURNING e.id, e.partition, e.group_keys, e.stream_key,
              e.attempts, e.enqueued_at, e.started_at, e.run_at, e.claim_at,
              CASE WHEN e.cancel_requested_at IS NOT NULL AND i.outcome <> 'succeeded' THEN 'canceled' ELSE i.outcome END AS outcome,
              i.error, i.stack, i.fingerprint,
              e.lease_owner AS old_owner
  ),
  attempts_ins AS (
    INSERT INTO execution_attempts (execution_id, task, attempt, coordinator_id, started_at, outcome, error, stack, fingerprint)
    SELECT u.id, p_task, u.attempts, u.old_owner, u.started_at, u.outcome, coalesce(u.error, 'unknown error'), u.stack, u.fingerprint
    FROM upd u WHERE u.outcome IN ('retry', 'dead')
  )
  SELECT array_agg(u.id), array_agg(u.outcome), array_agg(u.partition),
         array_agg(CASE WHEN u.outcome IN ('succeeded', 'dead')
                        THEN sluice_latency_bucket(extract(epoch FROM (now() - u.enqueued_at)) * 1000) END),
         -- wait (ready at run_at → claimed at started_at) and run (claimed → now) of the
         -- finishing attempt, so a delay or a retry backoff is not counted as wait and
         -- a slow handler shows as run time (issue 16: charted and alerted apart); measured A/B
         -- against the previous definition, 32-execution finishes alternating, load 25:
         -- median 15.06 ms before, 15.24 ms with both histograms (n = 160 each, noise-level)
         array_agg(CASE WHEN u.outcome IN ('succeeded', 'dead') AND u.started_at IS NOT NULL
                        THEN sluice_latency_bucket(greatest(extract(epoch FROM (u.started_at - u.run_at)), 0) * 1000) END),
         array_agg(CASE WHEN u.outcome IN ('succeeded', 'dead') AND u.started_at IS NOT NULL
                        THEN sluice_latency_bucket(extract(epoch FROM (now() - u.started_at)) * 1000) END),
         -- the finished rows' keys, one entry per (row, key): left for good, or requeued
         (SELECT coalesce(array_agg(k.gk), '{}') FROM upd u2 CROSS JOIN LATERAL unnest(u2.group_keys) k(gk)
          WHERE u2.outcome NOT IN ('retry', 'release')),
         (SELECT coalesce(array_agg(k.gk), '{}') FROM upd u2 CROSS JOIN LATERAL unnest(u2.group_keys) k(gk)
          WHERE u2.outcome IN ('retry', 'release')),
         coalesce(array_agg(DISTINCT u.stream_key) FILTER (WHERE u.stream_key IS NOT NULL AND u.outcome IN ('succeeded', 'dead', 'canceled')), '{}'),
         -- a requeued row's claim_at, for its partition's claim floor (below)
         array_agg(CASE WHEN u.outcome IN ('retry', 'release') THEN u.claim_at END),
         array_agg(u.id) FILTER (WHERE u.outcome = 'dead')
  INTO v_ids, v_outcomes, v_parts, v_buckets, v_wait_b, v_run_b, v_done_gks, v_req_gks, v_streams, v_lows, v_dead
  FROM upd u;
  IF v_ids IS NULL THEN RETURN; END IF;

  -- The dead letters of the rows that died, in a statement of its own that runs only when
  -- some did (2026-12-07): as a CTE of the update above it ran in every finish, and an
  -- INSERT fires dead_letters' statement trigger (the DLQ stats upsert) even when it inserts
  -- nothing — 0.06 ms of a 32-job cycle's 3.3 ms (docs/benchmarks.md, twenty-second
  -- session). The rows' columns are read back by primary key (this transaction's update is
  -- visible); the error, stack and fingerprint are the finish's input.
  IF v_dead IS NOT NULL THEN
    INSERT INTO dead_letters (execution_id, task, payload, groups, stream_key, idempotency_key, partition, attempts,
                              last_error, stack, fingerprint, enqueued_at)
    SELECT DISTINCT ON (e.id) e.id, p_task, e.payload, e.groups, e.stream_key, e.idempotency_key, e.partition, e.attempts,
           coalesce(i.error, 'unknown error'), i.stack, coalesce(i.fingerprint, ''), e.enqueued_at
    FROM unnest(p_ids, p_errors, p_stacks, p_fingerprints) AS i(id, error, stack, fingerprint)
    JOIN executions e ON e.id = i.id
    WHERE i.id = ANY (v_dead)
    ORDER BY e.id
    ON CONFLICT (execution_id) DO NOTHING;
  END IF;

  IF NOT p_defer_slots THEN
    UPDATE task_counters t SET in_flight = greatest(t.in_flight - cardinality(v_ids), 0) WHERE t.task = p_task;
  END IF;

  -- The counter rows in the lock order's one sorted pass before the update. With defer_slots
  -- the caller is sluice_cycle, which locked them (every finishing row's partition) before
  -- this finish: under a held snapshot a lock of a row walks all its versions since, as the
  -- update after it does, so it is not taken twice (2026-12-07, issue #18).
  IF NOT p_defer_slots THEN
    PERFORM 1 FROM partition_stats ps WHERE ps.task = p_task AND ps.partition = ANY (v_parts)
    ORDER BY ps.partition FOR NO KEY UPDATE;
  END IF;
  -- The partitions' moves (sluice_finish_partitions says what they are). A cycle's are left
  -- to its claim, which writes them with its own in one update of each row it claims from
  -- (defer_slots: the caller is sluice_cycle, whose claim follows in this transaction).
  SELECT jsonb_agg(jsonb_build_object('p', d.part, 'n', d.n, 'r', d.requeued, 'l', d.low) ORDER BY d.part) INTO v_moves
  FROM (
    SELECT x.part, count(*) AS n,
           count(*) FILTER (WHERE x.outcome IN ('retry', 'release')) AS requeued,
           min(x.low) AS low
    FROM unnest(v_parts, v_outcomes, v_lows) AS x(part, outcome, low)
    GROUP BY x.part
  ) d;
  IF p_defer_slots THEN
    PERFORM set_config('sluice.finish_moves', v_moves::text, true);
  ELSE
    PERFORM sluice_finish_partitions(p_task, v_moves);
  END IF;
  -- The finish-only counters, in rows of their own (migration
  -- 20261207000200000_partition_outcomes: under a held snapshot every read of a counter row
  -- walks its versions since, and these made partition_stats' ~700 bytes wide), written
  -- under the partition_stats row locks held above.
  UPDATE partition_outcomes po
  SET processed_total = po.processed_total + d.succeeded,
      failed_total = po.failed_total + d.failed,
      retried_total = po.retried_total + d.retried,
      dead_total = po.dead_total + d.dead,
      canceled_total = po.canceled_total + d.canceled,
      lat_hist = CASE WHEN d.buckets IS NULL THEN po.lat_hist ELSE sluice_hist_add(po.lat_hist, d.buckets) END,
      wait_hist = CASE WHEN d.wait_b IS NULL THEN po.wait_hist ELSE sluice_hist_add(po.wait_hist, d.wait_b) END,
      run_hist = CASE WHEN d.run_b IS NULL THEN po.run_hist ELSE sluice_hist_add(po.run_hist, d.run_b) END
  FROM (
    SELECT x.part,
           count(*) FILTER (WHERE x.outcome = 'succeeded') AS succeeded,
           count(*) FILTER (WHERE x.outcome IN ('retry', 'dead')) AS failed,
           count(*) FILTER (WHERE x.outcome = 'retry') AS retried,
           count(*) FILTER (WHERE x.outcome = 'dead') AS dead,
           count(*) FILTER (WHERE x.outcome = 'canceled') AS canceled,
           array_agg(x.bucket) FILTER (WHERE x.bucket IS NOT NULL) AS buckets,
           array_agg(x.wait_b) FILTER (WHERE x.wait_b IS NOT NULL) AS wait_b,
           array_agg(x.run_b) FILTER (WHERE x.run_b IS NOT NULL) AS run_b
    FROM unnest(v_parts, v_outcomes, v_buckets, v_wait_b, v_run_b) AS x(part, outcome, bucket, wait_b, run_b)
    GROUP BY x.part
  ) d
  WHERE po.task = p_task AND po.partition = d.part
    AND (d.succeeded + d.failed + d.dead + d.canceled > 0 OR d.buckets IS NOT NULL OR d.wait_b IS NOT NULL OR d.run_b IS NOT NULL);

  IF cardinality(v_done_gks) + cardinality(v_req_gks) > 0 THEN
    -- The slot counters' moves, logged for sluice_fold_slots (no group_slots row is taken
    -- here): every key of a finished row −1 in flight, of a requeued row also +1 queued.
    INSERT INTO slot_deltas (task, keys, d_in_flight, d_queued)
    SELECT p_task, x.keys, -1, x.dq FROM (VALUES (v_done_gks, 0), (v_req_gks, 1)) AS x(keys, dq)
    WHERE cardinality(x.keys) > 0;
    -- Slots of these keys were freed: the oldest rows waiting on them become claimable,
    -- as many as each key now has room for (not called when no row waits on any of them:
    -- one probe of the waiting index per freed key). Per key, not one probe for the whole
    -- task (until 2026-12-07): the index keeps an entry for every row released since a held
    -- snapshot at the head of its key's range, and the task-wide probe walked those of
    -- every key before the first with a row still waiting (2,587 buffers and 1.95 ms per
    -- cycle in bench:soak's hold; a key's own range holds only its own).
    IF EXISTS (
      SELECT 1 FROM (SELECT DISTINCT k.gk FROM unnest(v_done_gks || v_req_gks) AS k(gk)) k
      CROSS JOIN LATERAL (
        SELECT 1 FROM executions w WHERE w.task = p_task AND w.state = 'queued' AND w.waiting_on = k.gk
        ORDER BY w.claim_at, w.id LIMIT 1  -- executions_waiting_idx's order: never a seq scan
      ) x
    ) THEN
      PERFORM sluice_release_keys(p_task, v_groups, v_done_gks || v_req_gks);
    END IF;
  END IF;

  -- Streams whose head finished (or was canceled): promote the next blocked execution
  -- (sluice_promote_streams, under the streams' advisory locks).
  IF cardinality(v_streams) > 0 THEN
    PERFORM sluice_promote_streams(p_task, v_streams);
  END IF;

  RETURN QUERY SELECT x.id, x.outcome, NULL::text, NULL::text FROM unnest(v_ids, v_outcomes) AS x(id, outcome);
END
$function$;
