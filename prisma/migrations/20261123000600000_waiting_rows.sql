-- Up Migration
-- Waiting rows: a saturated key's backlog leaves the claim index. Also: the finish and
-- the claim's per-key lookups go by primary key whatever the planner's estimates.
--
-- Before, the claim filtered rows of saturated keys (in_flight ≥ limit) out of its index
-- range scan row by row: with 1,000 queued rows of one saturated tenant at the head of a
-- partition, every claim — every idle poll too — read those 1,000 rows under the task
-- lock before reaching anything claimable (W3 pickup p50 12 ms; W2 with 90% of the work
-- on one tenant fell to ~180 jobs/s once only that tenant's backlog was left).
--
-- Now a queued row of a saturated key is set aside: `waiting_on` = the key it waits for
-- ('group=key'). The claim index covers only rows with waiting_on IS NULL, so the claim
-- and its cheap idle test no longer see them. The row stays `queued` for everyone else
-- (depth counters, GET /executions, drains, the DLQ): waiting is a claim-side detail.
--
--  * set aside: by sluice_claim, when a round comes back short (fewer claimable rows than
--    free slots): the rows of saturated keys among the first 512 of each owned
--    partition's head. Not on full rounds: where busy keys take turns (10 tenants sharing
--    the slots evenly) skipping their rows in the scan is cheaper than writing each row
--    aside and back (bench W2: 3,057 jobs/s skipping vs 2,221 setting every row aside);
--  * released: by sluice_finish, in the transaction that frees slots of a key — the
--    oldest (limit − in_flight) rows waiting on that key, across all partitions, become
--    claimable again (they may wait again on another of their keys: a row waits on one
--    key at a time); and by sluice_release_waiting, the sweep the reconciler runs and a
--    config apply runs when a task's groups change (a raised or removed limit frees room
--    without any finish).
--
-- Why it stays live: a row waits only on a key with in_flight > 0 (the saturated test
-- requires it), and every decrement of a key's in_flight goes through sluice_finish
-- (completion, retry, dead, release, lease rescue), which releases that key's waiters
-- up to the room it made. Every writer of a task's queued rows holds the task_runtime
-- row lock, so setting aside and releasing never race each other.
--
-- Order within a key is kept: released in (run_at, id) order, and the claim ranks
-- released and never-waiting rows of a key together in (run_at, id) order.

ALTER TABLE executions ADD COLUMN waiting_on text;

DROP INDEX executions_claim_idx;
-- The claim: per owned partition, claimable rows in (run_at, id) order. Partial: neither
-- finished rows nor the rows waiting on a saturated key are in it.
CREATE INDEX executions_claim_idx ON executions (task, partition, run_at, id)
  WHERE state = 'queued' AND waiting_on IS NULL;
-- Release: the oldest rows waiting on one key of a task.
CREATE INDEX executions_waiting_idx ON executions (task, waiting_on, run_at, id)
  WHERE state = 'queued' AND waiting_on IS NOT NULL;

-- Claim up to p_max queued executions of p_task from the partitions p_coordinator owns.
-- One call = one round trip and one commit. Shape:
--  1. cheap exit when none of my partitions has a claimable row (no lock, no xid);
--  2. lock the task_runtime row; free = least(p_max, concurrency − in_flight);
--  3. ungrouped task: the oldest `free` rows over my partitions (LATERAL per partition);
--  4. grouped task: saturated keys = group_slots rows with in_flight ≥ limit (bounded
--     by the concurrency); per owned partition the oldest claimable rows that touch no
--     saturated key, skipped in the index scan itself but reading at most `read` rows
--     (LATERAL per partition, so a clogged head costs a bounded amount), merged oldest
--     first; each candidate is ranked per key and kept only when in_flight(key) + rank ≤
--     limit(key) for all its keys (may under-admit in one round, never over-admits).
--     A short round sets the saturated keys' rows at the head aside (see the top of this
--     file) and, if it found nothing at all, looks again (≤ 3 rounds);
--  5. the first `free` kept rows become running with a fresh lease token; counters move.
-- No FOR UPDATE SKIP LOCKED: every claimer and finisher of the task holds the
-- task_runtime lock, so nobody else changes a queued row of this task meanwhile.
CREATE OR REPLACE FUNCTION sluice_claim(p_coordinator uuid, p_task text, p_max integer, p_lease_ms integer)
RETURNS TABLE (
  id bigint, task text, partition integer, attempts integer, payload jsonb, groups jsonb,
  stream_key text, idempotency_key text, lease_token uuid, enqueued_at timestamptz, run_at timestamptz
)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_rt      record;
  v_free    integer;
  v_owned   integer[];
  v_sat     text[];
  v_window  integer;
  v_read    integer;
  v_ids     bigint[];
  v_set     integer;
  v_pass    integer := 0;
  v_token   uuid := gen_random_uuid();
  v_got     bigint[];
  v_parts   integer[];
  v_gks     text[];
BEGIN
  IF NOT EXISTS (
    SELECT 1 FROM partition_owners o
    JOIN executions e ON e.task = o.task AND e.partition = o.partition AND e.state = 'queued'
                     AND e.waiting_on IS NULL AND e.run_at <= now()
    WHERE o.owner = p_coordinator AND o.task = p_task
  ) THEN
    RETURN;
  END IF;
  SELECT t.concurrency, t.in_flight, t.paused, t.groups, t.active INTO v_rt
  FROM task_runtime t WHERE t.task = p_task FOR NO KEY UPDATE;
  IF NOT FOUND OR v_rt.paused OR NOT v_rt.active THEN RETURN; END IF;
  v_free := least(p_max, v_rt.concurrency - v_rt.in_flight);
  IF v_free <= 0 THEN RETURN; END IF;

  SELECT array_agg(o.partition ORDER BY o.partition) INTO v_owned
  FROM partition_owners o WHERE o.owner = p_coordinator AND o.task = p_task;
  IF v_owned IS NULL THEN RETURN; END IF;

  IF v_rt.groups = '{}'::jsonb THEN
    SELECT array_agg(c.id ORDER BY c.run_at, c.id) INTO v_ids FROM (
      SELECT x.id, x.run_at
      FROM unnest(v_owned) AS p(part)
      CROSS JOIN LATERAL (
        SELECT e.id, e.run_at FROM executions e
        WHERE e.task = p_task AND e.partition = p.part AND e.state = 'queued' AND e.waiting_on IS NULL
          AND e.run_at <= now()
        ORDER BY e.run_at, e.id
        LIMIT v_free
      ) x
      ORDER BY x.run_at, x.id
      LIMIT v_free
    ) c;
  ELSE
    SELECT coalesce(array_agg(gs.group_name || '=' || gs.group_key), '{}') INTO v_sat
    FROM group_slots gs
    WHERE gs.task = p_task AND gs.in_flight > 0
      AND gs.in_flight >= sluice_group_limit(v_rt.groups, gs.group_name, gs.group_key);
    -- window: candidates ranked per round; read: at most this many head rows per
    -- partition are looked at to find them (rows of saturated keys are skipped in the
    -- index scan itself, but only up to this bound).
    v_window := least(v_free * 2 + 16, 2000);
    v_read := least(v_window * 16 + 256, 8000);
    LOOP
      v_pass := v_pass + 1;
      WITH cand AS (
        SELECT x.id, x.group_keys, row_number() OVER (ORDER BY x.run_at, x.id) AS ord
        FROM (
          SELECT y.id, y.run_at, y.group_keys
          FROM unnest(v_owned) AS p(part)
          CROSS JOIN LATERAL (
            -- the outer LIMIT stops the scan as soon as `window` rows passed the filter;
            -- the inner one bounds what a clogged head can cost
            SELECT h.id, h.run_at, h.group_keys FROM (
              SELECT e.id, e.run_at, e.group_keys FROM executions e
              WHERE e.task = p_task AND e.partition = p.part AND e.state = 'queued' AND e.waiting_on IS NULL
                AND e.run_at <= now()
              ORDER BY e.run_at, e.id
              LIMIT v_read
            ) h
            WHERE NOT (h.group_keys && v_sat)
            LIMIT v_window
          ) y
          ORDER BY y.run_at, y.id
          LIMIT v_window
        ) x
      ),
      ck AS (
        SELECT c.id, k.gk, row_number() OVER (PARTITION BY k.gk ORDER BY c.ord) AS rn
        FROM cand c CROSS JOIN LATERAL unnest(c.group_keys) AS k(gk)
      ),
      -- One PK probe per distinct key in the window (LATERAL), never a scan of the task's
      -- slot rows: the cost follows the window, not the number of keys (1k vs 10k).
      -- MATERIALIZED: probed and limit-looked-up once per key, not once per ranked row.
      keys AS MATERIALIZED (
        SELECT d.gk, coalesce(gs.in_flight, 0) AS used, sluice_group_limit(v_rt.groups, d.gname, d.gkey) AS lim
        FROM (SELECT DISTINCT ck.gk, split_part(ck.gk, '=', 1) AS gname, substr(ck.gk, strpos(ck.gk, '=') + 1) AS gkey FROM ck) d
        LEFT JOIN LATERAL (
          SELECT s.in_flight FROM group_slots s WHERE s.task = p_task AND s.group_name = d.gname AND s.group_key = d.gkey
          LIMIT 1  -- never flattened: one primary-key probe per key, whatever the estimates
        ) gs ON true
      ),
      bad AS (
        SELECT DISTINCT ck.id FROM ck JOIN keys USING (gk)
        WHERE keys.lim IS NOT NULL AND keys.used + ck.rn > keys.lim
      )
      SELECT array_agg(s.id ORDER BY s.ord) INTO v_ids FROM (
        SELECT c.id, c.ord FROM cand c WHERE NOT EXISTS (SELECT 1 FROM bad b WHERE b.id = c.id)
        ORDER BY c.ord LIMIT v_free
      ) s;
      -- A full round needs nothing more. A short one may mean the head is clogged with
      -- rows of saturated keys (or the backlog is simply drained): set aside the rows of
      -- saturated keys among the first `aside` rows of each partition's head, so later
      -- claims and idle polls stop reading them. Not done on full rounds: where every key
      -- is busy in turn (10 tenants sharing the slots evenly), skipping rows in the scan
      -- costs less than writing each row aside and back (W2: 3,057 vs 2,221 jobs/s).
      EXIT WHEN coalesce(cardinality(v_ids), 0) >= v_free OR cardinality(v_sat) = 0 OR v_pass >= 3;
      WITH head AS (
        SELECT y.tid, y.group_keys
        FROM unnest(v_owned) AS p(part)
        CROSS JOIN LATERAL (
          SELECT e.ctid AS tid, e.group_keys FROM executions e
          WHERE e.task = p_task AND e.partition = p.part AND e.state = 'queued' AND e.waiting_on IS NULL
            AND e.run_at <= now()
          ORDER BY e.run_at, e.id
          LIMIT 512
        ) y
      ),
      aside AS (
        UPDATE executions e
        SET waiting_on = (SELECT k FROM unnest(e.group_keys) AS k WHERE k = ANY (v_sat) LIMIT 1)
        -- by ctid (one TID scan): nobody else changes a queued row of this task while we
        -- hold the task lock, so the rows read above are still the current versions
        WHERE e.ctid = ANY (ARRAY(SELECT h.tid FROM head h WHERE h.group_keys && v_sat)) AND e.state = 'queued'
        RETURNING 1
      )
      SELECT count(*) INTO v_set FROM aside;
      -- Claim what this round found; look again only when it found nothing and the head
      -- moved.
      EXIT WHEN v_ids IS NOT NULL OR v_set = 0;
    END LOOP;
  END IF;
  IF v_ids IS NULL THEN RETURN; END IF;

  WITH upd AS (
    UPDATE executions e
    SET state = 'running', attempts = e.attempts + 1, started_at = clock_timestamp(),
        lease_owner = p_coordinator, lease_token = v_token,
        lease_expires_at = now() + make_interval(secs => p_lease_ms / 1000.0)
    -- By primary key only. `IS NOT DISTINCT FROM` (state is NOT NULL, so the same test
    -- as `=`) keeps the planner from proving the claim index's predicate: under the
    -- session's generic plan it otherwise picked executions_claim_idx on task (rows=1
    -- estimated) and filtered the task's WHOLE backlog by id = ANY.
    WHERE e.id = ANY (v_ids) AND e.state IS NOT DISTINCT FROM 'queued' AND e.task = p_task
    RETURNING e.id, e.partition, e.group_keys
  )
  SELECT array_agg(u.id), array_agg(u.partition),
         (SELECT coalesce(array_agg(k.gk), '{}') FROM upd u2 CROSS JOIN LATERAL unnest(u2.group_keys) k(gk))
  INTO v_got, v_parts, v_gks FROM upd u;
  IF v_got IS NULL THEN RETURN; END IF;

  UPDATE task_runtime t SET in_flight = t.in_flight + cardinality(v_got) WHERE t.task = p_task;

  PERFORM 1 FROM partition_stats ps WHERE ps.task = p_task AND ps.partition = ANY (v_parts)
  ORDER BY ps.partition FOR NO KEY UPDATE;
  UPDATE partition_stats ps SET depth = ps.depth - d.n, in_flight = ps.in_flight + d.n, updated_at = now()
  FROM (SELECT p AS part, count(*) AS n FROM unnest(v_parts) p GROUP BY p) d
  WHERE ps.task = p_task AND ps.partition = d.part;

  IF cardinality(v_gks) > 0 THEN
    INSERT INTO group_slots AS gs (task, group_name, group_key, in_flight, queued, last_used_at)
    SELECT p_task, split_part(g, '=', 1), substr(g, strpos(g, '=') + 1), count(*), 0, now()
    FROM unnest(v_gks) g GROUP BY g ORDER BY 2, 3
    ON CONFLICT (task, group_name, group_key) DO UPDATE
      SET in_flight = gs.in_flight + excluded.in_flight,
          queued = greatest(gs.queued - excluded.in_flight, 0),
          last_used_at = now();
  END IF;

  RETURN QUERY
  SELECT e.id, e.task, e.partition, e.attempts, e.payload, e.groups, e.stream_key, e.idempotency_key,
         e.lease_token, e.enqueued_at, e.run_at
  FROM executions e WHERE e.id = ANY (v_got)
  ORDER BY e.run_at, e.id;
END
$$;
-- Generic plans: planned once per session (re-planning the ranking CTE per call cost more
-- than running it). A generic plan is made at a session's first call, often while the
-- statistics still describe small tables, so every lookup above is written to have one
-- plan whatever the estimates: LATERAL … LIMIT 1 probes (a subquery with LIMIT is never
-- flattened into a join) and updates by ctid (a TID scan). Before, the per-key probe was
-- flattened into a hash join over ALL of the task's group_slots rows, so the claim's cost
-- grew with the number of keys.
ALTER FUNCTION sluice_claim(uuid, text, integer, integer) SET plan_cache_mode = force_generic_plan;

-- Release rows waiting on the given keys ('group=key'): per key, the oldest
-- (limit − in_flight) rows waiting on it, across the task's partitions; every row when
-- the key's group is no longer configured (NULL limit: nothing to wait for). Caller holds
-- the task_runtime row lock (so the rows found are current when updated by ctid). One
-- LATERAL probe of executions_waiting_idx and one of group_slots per key.
CREATE FUNCTION sluice_release_keys(p_task text, p_groups jsonb, p_keys text[]) RETURNS integer
LANGUAGE sql AS $$
  WITH room AS (
    SELECT k.gk, CASE WHEN l.lim IS NULL THEN NULL ELSE greatest(l.lim - coalesce(s.in_flight, 0), 0) END AS n
    FROM (SELECT DISTINCT gk FROM unnest(p_keys) AS gk) k
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
        ORDER BY w.run_at, w.id
        LIMIT r.n  -- NULL = no limit
      ) x
    ))
    RETURNING 1
  )
  SELECT count(*)::integer FROM released
$$;

-- The sweep: release, for every key the task's rows wait on, as many rows as the key has
-- room for. Needed where room appears without a finish: a config apply that raised or
-- removed a limit, or the reconciler repairing a drifted in_flight count. Takes the
-- task_runtime row lock itself (the engine's lock order starts there). Returns how many
-- rows it released.
CREATE FUNCTION sluice_release_waiting(p_task text) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  v_groups jsonb;
  v_keys   text[];
BEGIN
  SELECT t.groups INTO v_groups FROM task_runtime t WHERE t.task = p_task FOR NO KEY UPDATE;
  IF NOT FOUND THEN v_groups := '{}'::jsonb; END IF;
  SELECT array_agg(DISTINCT w.waiting_on) INTO v_keys
  FROM executions w WHERE w.task = p_task AND w.state = 'queued' AND w.waiting_on IS NOT NULL;
  IF v_keys IS NULL THEN RETURN 0; END IF;
  RETURN sluice_release_keys(p_task, v_groups, v_keys);
END
$$;

-- sluice_finish as before (engine migration; its header comment holds), plus: the slots
-- it frees release the rows waiting on those keys (sluice_release_keys), in the same
-- transaction, after the group_slots counts moved; and it locks the keys' slot rows by
-- primary key instead of scanning all of the task's slot rows (see the comment there). And a `release` (shutdown) now keeps
-- the row's run_at instead of moving it to now(): a drained coordinator's work goes back
-- where it was in its partition and its keys, ahead of later arrivals.
CREATE OR REPLACE FUNCTION sluice_finish(
  p_task text, p_ids bigint[], p_tokens uuid[], p_outcomes text[], p_run_at timestamptz[],
  p_errors text[], p_stacks text[], p_fingerprints text[], p_only_expired boolean DEFAULT false,
  p_stale_ms integer DEFAULT 0
)
RETURNS TABLE (id bigint, outcome text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_ids       bigint[];
  v_outcomes  text[];
  v_parts     integer[];
  v_buckets   integer[];
  v_gks       text[];
  v_gk_out    text[];
  v_streams   text[];
  v_key       text;
  v_groups    jsonb;
BEGIN
  IF EXISTS (SELECT 1 FROM unnest(p_outcomes) o WHERE o IS NULL OR o NOT IN ('succeeded', 'retry', 'dead', 'release')) THEN
    RAISE EXCEPTION 'sluice_finish: outcomes must be succeeded, retry, dead or release' USING ERRCODE = '22023';
  END IF;
  SELECT t.groups INTO v_groups FROM task_runtime t WHERE t.task = p_task FOR NO KEY UPDATE;

  WITH input AS (
    SELECT * FROM unnest(p_ids, p_tokens, p_outcomes, p_run_at, p_errors, p_stacks, p_fingerprints)
      AS i(id, token, outcome, run_at, error, stack, fingerprint)
  ),
  upd AS (
    UPDATE executions e
    SET state = CASE i.outcome WHEN 'succeeded' THEN 'succeeded' WHEN 'dead' THEN 'dead' ELSE 'queued' END,
        run_at = CASE i.outcome WHEN 'retry' THEN i.run_at ELSE e.run_at END,  -- a release keeps its place
        attempts = CASE i.outcome WHEN 'release' THEN e.attempts - 1 ELSE e.attempts END,
        finished_at = CASE WHEN i.outcome IN ('succeeded', 'dead') THEN now() END,
        last_error = CASE WHEN i.outcome IN ('retry', 'dead') THEN i.error ELSE e.last_error END,
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
    RETURNING e.id, e.partition, e.group_keys, e.groups, e.stream_key, e.idempotency_key, e.payload,
              e.attempts, e.enqueued_at, e.started_at, i.outcome, i.error, i.stack, i.fingerprint,
              e.lease_owner AS old_owner
  ),
  attempts_ins AS (
    INSERT INTO execution_attempts (execution_id, task, attempt, coordinator_id, started_at, outcome, error, stack, fingerprint)
    SELECT u.id, p_task, u.attempts, u.old_owner, u.started_at, u.outcome, coalesce(u.error, 'unknown error'), u.stack, u.fingerprint
    FROM upd u WHERE u.outcome IN ('retry', 'dead')
  ),
  dead_ins AS (
    INSERT INTO dead_letters (execution_id, task, payload, groups, stream_key, idempotency_key, partition, attempts,
                              last_error, stack, fingerprint, enqueued_at)
    SELECT u.id, p_task, u.payload, u.groups, u.stream_key, u.idempotency_key, u.partition, u.attempts,
           coalesce(u.error, 'unknown error'), u.stack, coalesce(u.fingerprint, ''), u.enqueued_at
    FROM upd u WHERE u.outcome = 'dead'
    ON CONFLICT (execution_id) DO NOTHING
  )
  SELECT array_agg(u.id), array_agg(u.outcome), array_agg(u.partition),
         array_agg(CASE WHEN u.outcome IN ('succeeded', 'dead')
                        THEN sluice_latency_bucket(extract(epoch FROM (now() - u.enqueued_at)) * 1000) END),
         (SELECT coalesce(array_agg(k.gk), '{}') FROM upd u2 CROSS JOIN LATERAL unnest(u2.group_keys) k(gk)),
         (SELECT coalesce(array_agg(u2.outcome), '{}') FROM upd u2 CROSS JOIN LATERAL unnest(u2.group_keys) k(gk)),
         coalesce(array_agg(DISTINCT u.stream_key) FILTER (WHERE u.stream_key IS NOT NULL AND u.outcome IN ('succeeded', 'dead')), '{}')
  INTO v_ids, v_outcomes, v_parts, v_buckets, v_gks, v_gk_out, v_streams
  FROM upd u;
  IF v_ids IS NULL THEN RETURN; END IF;

  UPDATE task_runtime t SET in_flight = greatest(t.in_flight - cardinality(v_ids), 0) WHERE t.task = p_task;

  PERFORM 1 FROM partition_stats ps WHERE ps.task = p_task AND ps.partition = ANY (v_parts)
  ORDER BY ps.partition FOR NO KEY UPDATE;
  UPDATE partition_stats ps
  SET in_flight = greatest(ps.in_flight - d.n, 0),
      depth = ps.depth + d.requeued,
      processed_total = ps.processed_total + d.succeeded,
      failed_total = ps.failed_total + d.failed,
      retried_total = ps.retried_total + d.retried,
      dead_total = ps.dead_total + d.dead,
      lat_hist = CASE WHEN d.buckets IS NULL THEN ps.lat_hist ELSE sluice_hist_add(ps.lat_hist, d.buckets) END,
      updated_at = now()
  FROM (
    SELECT x.part, count(*) AS n,
           count(*) FILTER (WHERE x.outcome IN ('retry', 'release')) AS requeued,
           count(*) FILTER (WHERE x.outcome = 'succeeded') AS succeeded,
           count(*) FILTER (WHERE x.outcome IN ('retry', 'dead')) AS failed,
           count(*) FILTER (WHERE x.outcome = 'retry') AS retried,
           count(*) FILTER (WHERE x.outcome = 'dead') AS dead,
           array_agg(x.bucket) FILTER (WHERE x.bucket IS NOT NULL) AS buckets
    FROM unnest(v_parts, v_outcomes, v_buckets) AS x(part, outcome, bucket)
    GROUP BY x.part
  ) d
  WHERE ps.task = p_task AND ps.partition = d.part;

  IF cardinality(v_gks) > 0 THEN
    -- The keys' slot rows, locked in (group, key) order (enqueue upserts them sorted too)
    -- by one primary-key probe per distinct key: LATERAL … FOR NO KEY UPDATE is never
    -- flattened into a join. The engine migration matched `group_name || '=' || group_key
    -- = ANY (keys)` instead, which no index serves: it read and concatenated ALL of the
    -- task's slot rows on every finish.
    PERFORM 1
    FROM (SELECT DISTINCT split_part(k, '=', 1) AS gname, substr(k, strpos(k, '=') + 1) AS gkey
          FROM unnest(v_gks) AS k ORDER BY 1, 2) d
    CROSS JOIN LATERAL (
      SELECT 1 FROM group_slots s
      WHERE s.task = p_task AND s.group_name = d.gname AND s.group_key = d.gkey
      FOR NO KEY UPDATE
    ) l;
    UPDATE group_slots gs
    SET in_flight = greatest(gs.in_flight - d.n, 0), queued = gs.queued + d.requeued, last_used_at = now()
    FROM (
      SELECT split_part(x.gk, '=', 1) AS gname, substr(x.gk, strpos(x.gk, '=') + 1) AS gkey, count(*) AS n,
             count(*) FILTER (WHERE x.outcome IN ('retry', 'release')) AS requeued
      FROM unnest(v_gks, v_gk_out) AS x(gk, outcome) GROUP BY x.gk
    ) d
    WHERE gs.task = p_task AND gs.group_name = d.gname AND gs.group_key = d.gkey;
    -- Slots of these keys were freed: the oldest rows waiting on them become claimable,
    -- as many as each key now has room for (one probe of the waiting index when the
    -- task has no waiting rows at all).
    IF EXISTS (SELECT 1 FROM executions w WHERE w.task = p_task AND w.state = 'queued' AND w.waiting_on IS NOT NULL) THEN
      PERFORM sluice_release_keys(p_task, v_groups, v_gks);
    END IF;
  END IF;

  -- Streams whose head finished: promote the next blocked execution (lowest id), under
  -- the stream's advisory lock so a concurrent enqueue cannot slip a row in unseen.
  IF cardinality(v_streams) > 0 THEN
    FOR v_key IN SELECT s FROM unnest(v_streams) s ORDER BY s LOOP
      PERFORM pg_advisory_xact_lock(hashtextextended(p_task || chr(31) || v_key, 0));
    END LOOP;
    UPDATE executions e SET state = 'queued', run_at = greatest(e.run_at, now())
    FROM unnest(v_streams) AS s(k)
    CROSS JOIN LATERAL (
      SELECT b.id FROM executions b
      WHERE b.task = p_task AND b.stream_key = s.k AND b.state IN ('blocked', 'queued', 'running')
      ORDER BY b.id LIMIT 1
    ) nxt
    WHERE e.id = nxt.id AND e.state = 'blocked';
  END IF;

  RETURN QUERY SELECT x.id, x.outcome FROM unnest(v_ids, v_outcomes) AS x(id, outcome);
END
$$;
ALTER FUNCTION sluice_finish(text, bigint[], uuid[], text[], timestamptz[], text[], text[], text[], boolean, integer)
  SET plan_cache_mode = force_generic_plan;

-- Down Migration
-- Not reversible in place: sluice_claim and sluice_finish would have to be restated as
-- they were (migrations 20261123000200000 and 20261123000500000). Roll forward instead.
DO $$ BEGIN
  RAISE EXCEPTION 'migration waiting_rows cannot be undone; apply a new migration instead';
END $$;
