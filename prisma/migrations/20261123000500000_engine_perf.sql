-- Up Migration
-- Engine performance (bench/engine.ts, docs/benchmarks.md has the before/after figures):
--  1. sluice_claim's UPDATE goes by primary key (it scanned the task's whole backlog);
--  2. sluice_latency_bucket is one inlinable width_bucket call (it was a subquery per row);
--  3. sluice_finish_and_claim: finish a batch and refill the freed slots in one round trip.

-- 1. The claim, unchanged but for the UPDATE's WHERE clause (see the comment there).
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
  v_ids     bigint[];
  v_token   uuid := gen_random_uuid();
  v_got     bigint[];
  v_parts   integer[];
  v_gks     text[];
BEGIN
  -- Cheap exit for idle polls: nothing claimable in my partitions → return before taking
  -- the task lock, so the transaction stays read-only (no xid, no WAL flush at commit).
  IF NOT EXISTS (
    SELECT 1 FROM partition_owners o
    JOIN executions e ON e.task = o.task AND e.partition = o.partition AND e.state = 'queued' AND e.run_at <= now()
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
        WHERE e.task = p_task AND e.partition = p.part AND e.state = 'queued' AND e.run_at <= now()
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
    v_window := least(v_free * 4 + 16, 2000);
    WITH cand AS (
      SELECT x.id, x.group_keys, row_number() OVER (ORDER BY x.run_at, x.id) AS ord
      FROM (
        SELECT y.id, y.run_at, y.group_keys
        FROM unnest(v_owned) AS p(part)
        CROSS JOIN LATERAL (
          SELECT e.id, e.run_at, e.group_keys FROM executions e
          WHERE e.task = p_task AND e.partition = p.part AND e.state = 'queued' AND e.run_at <= now()
            AND NOT (e.group_keys && v_sat)
          ORDER BY e.run_at, e.id
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
    keys AS (
      SELECT d.gk, coalesce(gs.in_flight, 0) AS used, sluice_group_limit(v_rt.groups, d.gname, d.gkey) AS lim
      FROM (SELECT DISTINCT ck.gk, split_part(ck.gk, '=', 1) AS gname, substr(ck.gk, strpos(ck.gk, '=') + 1) AS gkey FROM ck) d
      LEFT JOIN LATERAL (
        SELECT s.in_flight FROM group_slots s WHERE s.task = p_task AND s.group_name = d.gname AND s.group_key = d.gkey
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
    -- estimated) and filtered the task's WHOLE backlog by id = ANY — the reason claims
    -- got slower as the backlog grew (10k queued: 9,700 rows read per claim).
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
-- CREATE OR REPLACE resets the function's SET clauses: keep the generic plans.
ALTER FUNCTION sluice_claim(uuid, text, integer, integer) SET plan_cache_mode = force_generic_plan;

-- 2. 1-based bucket index of a latency in ms: the first bound b with ms <= b (17 = above
-- the last bound), as before. width_bucket counts the thresholds <= its operand, so on
-- the negated, reversed bounds it counts the bounds >= ms; 17 minus that is the bucket.
-- A plain expression, so the planner inlines it instead of running a subquery per row.
CREATE OR REPLACE FUNCTION sluice_latency_bucket(ms double precision) RETURNS integer
LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(17 - width_bucket(-ms, ARRAY[-300000, -60000, -30000, -10000, -5000, -2500, -1000, -500, -250, -100, -50, -25, -10, -5, -2, -1]::double precision[]), 17)
$$;

-- 3. Finish a batch and refill the freed slots in one round trip.
-- sluice_finish_and_claim(coordinator, task, max, lease_ms, <sluice_finish arrays>) runs
-- sluice_finish and then sluice_claim in ONE transaction (one call, one commit). Slots
-- freed by the finished rows are refilled in the same commit, so a busy coordinator pays
-- one round trip per cycle instead of finish → wait → claim in series.
--
-- Guarantees are those of the two functions it calls, unchanged:
--  * fencing: sluice_finish matches (id, lease_token, state = running); a completion from
--    a lost lease matches nothing;
--  * "never claim beyond free slots": p_max is the caller's free local slots (counting
--    the rows being finished here); sluice_claim caps it by concurrency − in_flight under
--    the task_runtime row lock, and because sluice_finish already lowered in_flight in
--    this transaction (its UPDATE is visible to the next statement), the cluster-wide
--    limit is read exactly. Group limits likewise see the released group_slots counts.
--  * lock order: sluice_finish takes task_runtime → executions → partition_stats →
--    group_slots → stream locks; sluice_claim then takes task_runtime again (already
--    held) and the same order, so nothing new can deadlock.
-- Rows come back tagged: kind = 'finished' (id, outcome) or 'claimed' (the claim's row).
CREATE FUNCTION sluice_finish_and_claim(
  p_coordinator uuid, p_task text, p_max integer, p_lease_ms integer,
  p_ids bigint[], p_tokens uuid[], p_outcomes text[], p_run_at timestamptz[],
  p_errors text[], p_stacks text[], p_fingerprints text[]
)
RETURNS TABLE (
  kind text, id bigint, outcome text, task text, partition integer, attempts integer, payload jsonb, groups jsonb,
  stream_key text, idempotency_key text, lease_token uuid, enqueued_at timestamptz, run_at timestamptz
)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
BEGIN
  IF cardinality(p_ids) > 0 THEN
    RETURN QUERY
    SELECT 'finished'::text, f.id, f.outcome, p_task, NULL::integer, NULL::integer, NULL::jsonb, NULL::jsonb,
           NULL::text, NULL::text, NULL::uuid, NULL::timestamptz, NULL::timestamptz
    FROM sluice_finish(p_task, p_ids, p_tokens, p_outcomes, p_run_at, p_errors, p_stacks, p_fingerprints, false, 0) f;
  END IF;
  IF p_max > 0 THEN
    RETURN QUERY
    SELECT 'claimed'::text, c.id, NULL::text, c.task, c.partition, c.attempts, c.payload, c.groups,
           c.stream_key, c.idempotency_key, c.lease_token, c.enqueued_at, c.run_at
    FROM sluice_claim(p_coordinator, p_task, p_max, p_lease_ms) c;
  END IF;
END
$$;
ALTER FUNCTION sluice_finish_and_claim(uuid, text, integer, integer, bigint[], uuid[], text[], timestamptz[], text[], text[], text[])
  SET plan_cache_mode = force_generic_plan;

-- Down Migration
DROP FUNCTION sluice_finish_and_claim(uuid, text, integer, integer, bigint[], uuid[], text[], timestamptz[], text[], text[], text[]);
CREATE OR REPLACE FUNCTION sluice_latency_bucket(ms double precision) RETURNS integer
LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce((SELECT min(i) FROM generate_subscripts(sluice_latency_bounds(), 1) i
                   WHERE ms <= (sluice_latency_bounds())[i]), 17)
$$;
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
  v_ids     bigint[];
  v_token   uuid := gen_random_uuid();
  v_got     bigint[];
  v_parts   integer[];
  v_gks     text[];
BEGIN
  -- Cheap exit for idle polls: nothing claimable in my partitions → return before taking
  -- the task lock, so the transaction stays read-only (no xid, no WAL flush at commit).
  IF NOT EXISTS (
    SELECT 1 FROM partition_owners o
    JOIN executions e ON e.task = o.task AND e.partition = o.partition AND e.state = 'queued' AND e.run_at <= now()
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
        WHERE e.task = p_task AND e.partition = p.part AND e.state = 'queued' AND e.run_at <= now()
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
    v_window := least(v_free * 4 + 16, 2000);
    WITH cand AS (
      SELECT x.id, x.group_keys, row_number() OVER (ORDER BY x.run_at, x.id) AS ord
      FROM (
        SELECT y.id, y.run_at, y.group_keys
        FROM unnest(v_owned) AS p(part)
        CROSS JOIN LATERAL (
          SELECT e.id, e.run_at, e.group_keys FROM executions e
          WHERE e.task = p_task AND e.partition = p.part AND e.state = 'queued' AND e.run_at <= now()
            AND NOT (e.group_keys && v_sat)
          ORDER BY e.run_at, e.id
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
    keys AS (
      SELECT d.gk, coalesce(gs.in_flight, 0) AS used, sluice_group_limit(v_rt.groups, d.gname, d.gkey) AS lim
      FROM (SELECT DISTINCT ck.gk, split_part(ck.gk, '=', 1) AS gname, substr(ck.gk, strpos(ck.gk, '=') + 1) AS gkey FROM ck) d
      LEFT JOIN LATERAL (
        SELECT s.in_flight FROM group_slots s WHERE s.task = p_task AND s.group_name = d.gname AND s.group_key = d.gkey
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
  END IF;
  IF v_ids IS NULL THEN RETURN; END IF;

  WITH upd AS (
    UPDATE executions e
    SET state = 'running', attempts = e.attempts + 1, started_at = clock_timestamp(),
        lease_owner = p_coordinator, lease_token = v_token,
        lease_expires_at = now() + make_interval(secs => p_lease_ms / 1000.0)
    WHERE e.id = ANY (v_ids) AND e.state = 'queued' AND e.task = p_task
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
ALTER FUNCTION sluice_claim(uuid, text, integer, integer) SET plan_cache_mode = force_generic_plan;
