-- Up Migration
-- HOT slot counters. Every execution with k group keys writes k group_slots rows when it is
-- claimed (in_flight + 1, queued − 1) and k again when it finishes (in_flight − 1): in
-- bench W2 (two keys per execution) about 4 slot-row updates per job. Two partial indexes
-- named the counters in their predicates — group_slots_busy_idx (task) WHERE in_flight > 0
-- and group_slots_idle_idx (last_used_at) WHERE in_flight = 0 AND queued = 0 — and a
-- column named in any index (predicate included) rules out a heap-only (HOT) update: each
-- of those writes inserted a new entry into the primary key and the partial indexes, and
-- every later primary-key probe of the key walked past the dead versions' entries until
-- vacuum came. Now no index names a counter, so these updates are HOT: the new version
-- goes on the same page (fillfactor 50 leaves room) and the indexes are not touched.
--
-- What the two indexes served:
--  * busy_idx: the claim's saturated keys. They now come from the task's running rows —
--    a key's in_flight counts exactly its running executions (every claim and finish of
--    the task moves both under the task_runtime lock), there are at most `concurrency` of
--    them, and executions_running_idx now leads with the task to find them;
--  * idle_idx: slot GC, a maintenance sweep every few minutes, now a scan of group_slots
--    (one row per key in use).

DROP INDEX group_slots_busy_idx;
DROP INDEX group_slots_idle_idx;
ALTER TABLE group_slots SET (fillfactor = 50);

-- Running rows by task (the claim's saturated keys, the reconciler's running arm) and in
-- (task, id) order (the lease rescuer). lease_owner and lease_expires_at were its columns
-- but no query looked rows up by them.
DROP INDEX executions_running_idx;
CREATE INDEX executions_running_idx ON executions (task, id) WHERE state = 'running';

-- sluice_claim as in migration 20261123000600000 (its header comment holds), except:
--  * step 4 reads the keys in use from the task's running rows (≤ concurrency), not from
--    group_slots: the saturated keys (was: group_slots rows with in_flight ≥ limit
--    through the dropped busy index) and each ranked key's count (was: one group_slots
--    primary-key probe per distinct key of the window);
--  * step 1's cheap exit probes the claim index once per owned partition (see there).
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
  v_sat_obj jsonb;
  v_run_keys text[];
  v_run_n   integer[];
  v_window  integer;
  v_read    integer;
  v_ids     bigint[];
  v_set     integer;
  v_cands   integer;
  v_skipped integer;
  v_pass    integer := 0;
  v_token   uuid := gen_random_uuid();
  v_got     bigint[];
  v_parts   integer[];
  v_gks     text[];
BEGIN
  -- Driven by my partition_owners rows, one LATERAL probe of the claim index each (a
  -- subquery with LIMIT is never flattened; with ORDER BY in the index's order, a seq scan
  -- could only win by sorting every match). As a plain EXISTS join, a generic plan made
  -- while the task's rows were mostly queued seq-scanned executions from the start of the
  -- heap (finished rows first) for the first match: 15–19 ms per claim and per idle poll
  -- at 120k rows, growing with every row kept.
  IF NOT EXISTS (
    SELECT 1 FROM partition_owners o
    CROSS JOIN LATERAL (
      SELECT 1 FROM executions e
      WHERE e.task = o.task AND e.partition = o.partition AND e.state = 'queued'
        AND e.waiting_on IS NULL AND e.run_at <= now()
      ORDER BY e.run_at, e.id  -- the claim index's order: no plan but its range scan avoids a sort of every match
      LIMIT 1
    ) x
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
    -- Keys in use = the keys of the task's running rows, with how many each has: exactly
    -- the group_slots in_flight counts (every claim and finish moves both under the
    -- task_runtime lock), read from at most `concurrency` rows through
    -- executions_running_idx instead of one group_slots probe per key. Saturated keys:
    -- those at their limit.
    SELECT coalesce(array_agg(r.gk), '{}'), coalesce(array_agg(r.n), '{}'),
           coalesce(array_agg(r.gk) FILTER (
             WHERE r.n >= sluice_group_limit(v_rt.groups, split_part(r.gk, '=', 1), substr(r.gk, strpos(r.gk, '=') + 1))), '{}')
    INTO v_run_keys, v_run_n, v_sat
    FROM (
      SELECT k.gk, count(*)::integer AS n
      FROM executions e CROSS JOIN LATERAL unnest(e.group_keys) AS k(gk)
      WHERE e.task = p_task AND e.state = 'running'
      GROUP BY k.gk
    ) r;
    SELECT coalesce(jsonb_object_agg(k, true), '{}') INTO v_sat_obj FROM unnest(v_sat) AS k;
    -- window: candidates ranked per round (1.5× the free slots: 2× ranked a third more
    -- rows for ~1% more admitted in W2); read: at most this many head rows per partition
    -- are looked at to find them (rows of saturated keys are skipped in the index scan
    -- itself, but only up to this bound).
    v_window := least(v_free * 3 / 2 + 16, 2000);
    v_read := least(v_window * 16 + 256, 8000);
    LOOP
      v_pass := v_pass + 1;
      WITH cand AS (
        SELECT x.id, x.group_keys, x.part, x.pos, row_number() OVER (ORDER BY x.run_at, x.id) AS ord
        FROM (
          SELECT y.id, y.run_at, y.group_keys, p.part, y.pos
          FROM unnest(v_owned) AS p(part)
          CROSS JOIN LATERAL (
            -- the outer LIMIT stops the scan as soon as `window` rows passed the filter;
            -- the inner one bounds what a clogged head can cost. pos: the row's place in
            -- the head (rows before it that it does not count were skipped as saturated)
            SELECT h.id, h.run_at, h.group_keys, h.pos FROM (
              SELECT e.id, e.run_at, e.group_keys, row_number() OVER (ORDER BY e.run_at, e.id) AS pos
              FROM executions e
              WHERE e.task = p_task AND e.partition = p.part AND e.state = 'queued' AND e.waiting_on IS NULL
                AND e.run_at <= now()
              ORDER BY e.run_at, e.id
              LIMIT v_read
            ) h
            -- jsonb ?| looks each of the row's keys up in the sorted keys of an object
            -- (binary search); `group_keys && v_sat` compared every pair: ~3 µs per row
            -- read with 200 saturated keys
            WHERE NOT (v_sat_obj ?| h.group_keys)
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
      -- Each distinct key of the window with its running count (from the arrays read
      -- above: no table access, so the cost follows the window and the concurrency, not
      -- the number of keys) and its limit. MATERIALIZED: looked up once per key, not once
      -- per ranked row.
      keys AS MATERIALIZED (
        SELECT d.gk, coalesce(r.n, 0) AS used, sluice_group_limit(v_rt.groups, d.gname, d.gkey) AS lim
        FROM (SELECT DISTINCT ck.gk, split_part(ck.gk, '=', 1) AS gname, substr(ck.gk, strpos(ck.gk, '=') + 1) AS gkey FROM ck) d
        LEFT JOIN unnest(v_run_keys, v_run_n) AS r(gk, n) ON r.gk = d.gk
      ),
      bad AS (
        SELECT DISTINCT ck.id FROM ck JOIN keys USING (gk)
        WHERE keys.lim IS NOT NULL AND keys.used + ck.rn > keys.lim
      )
      SELECT array_agg(s.id ORDER BY s.ord), (SELECT count(*) FROM cand),
             (SELECT coalesce(sum(z.skipped), 0) FROM (SELECT max(c.pos) - count(*) AS skipped FROM cand c GROUP BY c.part) z)
      INTO v_ids, v_cands, v_skipped FROM (
        SELECT c.id, c.ord FROM cand c WHERE NOT EXISTS (SELECT 1 FROM bad b WHERE b.id = c.id)
        ORDER BY c.ord LIMIT v_free
      ) s;
      -- A full round needs nothing more. Nor does a short round whose window filled
      -- without skipping many rows of saturated keys: its head had enough claimable rows
      -- and the ranking turned some down (tenants sharing the slots in turn, as in W2);
      -- the next round comes with the next finish. Otherwise the head is clogged with
      -- rows of saturated keys (more of them skipped than the window holds), or the
      -- backlog's end was reached: set aside the rows of saturated keys among the first
      -- 512 rows of each partition's head, so later claims and idle polls stop reading
      -- them. (Setting aside on every short round cost more than it saved: in W2 most
      -- rounds are a few rows short, and each set aside ~100 rows that the next finish
      -- released again: 17.7 vs 9.9 ms of database time per 100-job cycle.)
      EXIT WHEN coalesce(cardinality(v_ids), 0) >= v_free OR (v_cands >= v_window AND v_skipped < v_window)
             OR cardinality(v_sat) = 0 OR v_pass >= 3;
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
-- Generic plans, for the reasons given in migration 20261123000600000.
ALTER FUNCTION sluice_claim(uuid, text, integer, integer) SET plan_cache_mode = force_generic_plan;

-- sluice_finish as in migration 20261123000600000 (its comments hold), except:
--  * the slot counters move in one sorted upsert (was: a locking probe per key, then an
--    UPDATE; per 100 two-key executions 0.72 + 0.58 ms before, 0.84–1.37 ms after in
--    single samples: within this VM's noise, kept as one statement in the claim's form);
--  * the "any waiting rows?" probe is written in executions_waiting_idx's order, so no
--    generic plan can answer it with a seq scan of executions (the claim's cheap exit did
--    exactly that, see above).
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
  v_new       text[];
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
    -- One sorted upsert: rows are locked in (group, key) order as the enqueue's upsert
    -- does (no deadlock), in one statement instead of a locking probe per key followed
    -- by an UPDATE. The proposed row carries the decrement in in_flight for the
    -- ON CONFLICT arm; the insert arm is for a slot row that vanished (it cannot while
    -- its key runs; a hand-edited table could) and is set right just below.
    WITH up AS (
      INSERT INTO group_slots AS gs (task, group_name, group_key, in_flight, queued, last_used_at)
      SELECT p_task, split_part(x.gk, '=', 1), substr(x.gk, strpos(x.gk, '=') + 1), count(*),
             count(*) FILTER (WHERE x.outcome IN ('retry', 'release')), now()
      FROM unnest(v_gks, v_gk_out) AS x(gk, outcome) GROUP BY x.gk ORDER BY 2, 3
      ON CONFLICT (task, group_name, group_key) DO UPDATE
        SET in_flight = greatest(gs.in_flight - excluded.in_flight, 0), queued = gs.queued + excluded.queued,
            last_used_at = now()
      RETURNING gs.group_name, gs.group_key, (gs.xmax = 0) AS inserted
    )
    SELECT coalesce(array_agg(up.group_name || '=' || up.group_key) FILTER (WHERE up.inserted), '{}') INTO v_new FROM up;
    IF cardinality(v_new) > 0 THEN
      UPDATE group_slots gs SET in_flight = 0
      WHERE gs.task = p_task AND gs.group_name || '=' || gs.group_key = ANY (v_new);
    END IF;
    -- Slots of these keys were freed: the oldest rows waiting on them become claimable,
    -- as many as each key now has room for (one probe of the waiting index when the
    -- task has no waiting rows at all).
    IF EXISTS (
      SELECT 1 FROM executions w WHERE w.task = p_task AND w.state = 'queued' AND w.waiting_on IS NOT NULL
      ORDER BY w.waiting_on, w.run_at, w.id LIMIT 1  -- executions_waiting_idx's order: never a seq scan
    ) THEN
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
-- Not reversible in place (sluice_claim and sluice_finish would have to be restated as they
-- were). Roll forward.
DO $$ BEGIN
  RAISE EXCEPTION 'migration hot_slots cannot be undone; apply a new migration instead';
END $$;
