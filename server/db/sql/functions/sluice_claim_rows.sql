-- sluice_claim_rows(coordinator, task, max, lease_ms, parts, after_finish): claim up to
-- `max` queued executions of a task from the partitions this coordinator owns (and, when
-- `parts` is not NULL, that are in `parts`). sluice_claim(coordinator, task, max,
-- lease_ms) is this with parts NULL and after_finish false (the claim loop's call);
-- sluice_cycle calls it after the finish in the same transaction with the partitions
-- whose counter rows it locked first, and after_finish true when the cycle moves the
-- claimed rows' group_slots counters itself (see below: "Claim after a finish"). One call = one round trip and one
-- commit; docs/architecture.md § "Claiming" is the long form.
--
-- Shape:
--  1. cheap exit when none of my partitions has a claimable row: no lock taken, so an
--     idle poll's transaction stays read-only (no xid, no WAL flush at commit);
--  2. lock the task_runtime row (its own statement: in READ COMMITTED each statement of
--     a volatile function takes a new snapshot, so the next ones see every counter the
--     previous claimer committed); free = least(max, concurrency − in_flight);
--  3. ungrouped task: the oldest `free` rows over my partitions (LATERAL per partition);
--  4. grouped task: keys in use from the task's running rows (≤ concurrency), saturated
--     keys = those at their limit; per owned partition the oldest claimable rows touching
--     no saturated key, skipped in the index scan itself but reading at most
--     16 × window + 256 rows (window = 1.5 × free + 16), merged oldest first; each
--     candidate ranked per key and kept only when running(key) + rank ≤ limit(key) for
--     all its keys (may under-admit in one round, never over-admits). A round whose head
--     is clogged sets the saturated keys' rows aside (executions.waiting_on, out of the
--     claim index; sluice_finish and sluice_release_waiting release them) and, if it
--     found nothing at all, looks again (≤ 3 rounds);
--  5. the first `free` kept rows become running with a fresh lease token (UPDATE by
--     primary key); task_runtime, partition_stats and group_slots counters move, in the
--     engine's lock order: task_runtime → executions → partition_stats (sorted) →
--     group_slots (sorted) → stream advisory locks (sorted).
-- Order: "oldest" above means claim order, (claim_at, id) — executions_claim_idx's order.
-- claim_at = run_at − priority × agingMs (a generated column, prisma/migrations
-- 20261124210000001_priorities): higher priority first, aging by waiting time, the same
-- (run_at, id) as before when every priority is 0. Priorities are ≥ 0, so claim_at ≤
-- run_at and `claim_at <= now() (UTC)` is an index bound: a row not yet due but ranked
-- ahead by its priority is read and filtered by `run_at <= now()` only while it is due
-- within its lead (priority × agingMs). The rule: server/core/priority.ts.
-- No FOR UPDATE SKIP LOCKED: every claimer and finisher of the task holds the
-- task_runtime lock, so nobody else changes a queued row of the task meanwhile, and
-- locking window rows we then drop would write a tuple lock per row.
--
-- Generic plans (plan_cache_mode): re-planning the ranking per call cost more than
-- running it (~15 ms planning on a loaded 2-core box). A generic plan is made at a
-- session's first call, often from statistics of small tables, so every lookup is
-- written to have one plan whatever the estimates: LATERAL … LIMIT 1 probes, updates by
-- primary key or ctid (comments in the body say where and why).
--
-- Measured (docs/benchmarks.md, passes 1–3; the comments in the body carry the rest):
--  * the UPDATE by primary key: under the generic plan it used the claim index on task
--    and filtered the whole backlog by id (9,700 index entries read per claim of 100 at
--    10,000 queued; engine-claim-plans / engine-finish-and-claim tests assert < 1,000);
--  * the cheap exit as LATERAL probes: as a plain EXISTS join it seq-scanned executions
--    on every idle poll (19–23 ms at 120k rows; 0.64 ms after);
--  * setting aside only a clogged head: on every short round it cost 17.7 vs 9.9 ms of
--    database time per 100-job W2 cycle; full rounds skip instead (W2 3,057 jobs/s
--    skipping vs 2,221 setting every row aside);
--  * `jsonb ?|` for the saturated-key test (binary search) instead of text[] && text[]
--    (every pair, ~3 µs per row read with 200 saturated keys): W2 cycle 10.8 → 8.7 ms;
--  * window 1.5 × free + 16 instead of 2 ×: 7.1–7.8 vs 8.6–8.8 ms per cycle, 92.9 vs
--    94.2 rows claimed per 100 asked.
-- History: this body was sluice_claim's (server/db/sql/functions/sluice_claim.sql) until
-- p_parts and p_after_finish came (the enqueue/cycle deadlock, 2026-11-24); before that file:
-- prisma/migrations 20261123000200000_engine (first),
-- …0500000_engine_perf, …0600000_waiting_rows, …0700000_hot_slots. Priorities (claim order
-- by claim_at): 2026-11-24, issue #19.

CREATE OR REPLACE FUNCTION public.sluice_claim_rows(p_coordinator uuid, p_task text, p_max integer, p_lease_ms integer, p_parts integer[], p_after_finish boolean)
 RETURNS TABLE(id bigint, task text, partition integer, attempts integer, payload jsonb, groups jsonb, stream_key text, idempotency_key text, lease_token uuid, enqueued_at timestamp with time zone, run_at timestamp with time zone)
 LANGUAGE plpgsql
 SET plan_cache_mode TO 'force_generic_plan'
AS $function$
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
        AND e.waiting_on IS NULL AND e.run_at <= now() AND e.claim_at <= (now() AT TIME ZONE 'UTC')
      ORDER BY e.claim_at, e.id  -- the claim index's order: no plan but its range scan avoids a sort of every match
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
  FROM partition_owners o WHERE o.owner = p_coordinator AND o.task = p_task
    AND (p_parts IS NULL OR o.partition = ANY (p_parts));
  IF v_owned IS NULL THEN RETURN; END IF;

  IF v_rt.groups = '{}'::jsonb THEN
    SELECT array_agg(c.id ORDER BY c.claim_at, c.id) INTO v_ids FROM (
      SELECT x.id, x.claim_at
      FROM unnest(v_owned) AS p(part)
      CROSS JOIN LATERAL (
        SELECT e.id, e.claim_at FROM executions e
        WHERE e.task = p_task AND e.partition = p.part AND e.state = 'queued' AND e.waiting_on IS NULL
          AND e.run_at <= now() AND e.claim_at <= (now() AT TIME ZONE 'UTC')
        ORDER BY e.claim_at, e.id
        LIMIT v_free
      ) x
      ORDER BY x.claim_at, x.id
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
        SELECT x.id, x.group_keys, x.part, x.pos, row_number() OVER (ORDER BY x.claim_at, x.id) AS ord
        FROM (
          SELECT y.id, y.claim_at, y.group_keys, p.part, y.pos
          FROM unnest(v_owned) AS p(part)
          CROSS JOIN LATERAL (
            -- the outer LIMIT stops the scan as soon as `window` rows passed the filter;
            -- the inner one bounds what a clogged head can cost. pos: the row's place in
            -- the head (rows before it that it does not count were skipped as saturated)
            SELECT h.id, h.claim_at, h.group_keys, h.pos FROM (
              SELECT e.id, e.claim_at, e.group_keys, row_number() OVER (ORDER BY e.claim_at, e.id) AS pos
              FROM executions e
              WHERE e.task = p_task AND e.partition = p.part AND e.state = 'queued' AND e.waiting_on IS NULL
                AND e.run_at <= now() AND e.claim_at <= (now() AT TIME ZONE 'UTC')
              ORDER BY e.claim_at, e.id
              LIMIT v_read
            ) h
            -- jsonb ?| looks each of the row's keys up in the sorted keys of an object
            -- (binary search); `group_keys && v_sat` compared every pair: ~3 µs per row
            -- read with 200 saturated keys
            WHERE NOT (v_sat_obj ?| h.group_keys)
            LIMIT v_window
          ) y
          ORDER BY y.claim_at, y.id
          LIMIT v_window
        ) x
      ),
      ck AS (
        SELECT c.id, c.ord, k.gk
        FROM cand c CROSS JOIN LATERAL unnest(c.group_keys) AS k(gk)
      ),
      -- Each distinct key of the window with its running count (from the arrays read
      -- above: no table access, so the cost follows the window and the concurrency, not
      -- the number of keys), its limit and how many window rows carry it. MATERIALIZED:
      -- looked up once per key, not once per ranked row.
      keys AS MATERIALIZED (
        SELECT d.gk, d.cnt, coalesce(r.n, 0) AS used, sluice_group_limit(v_rt.groups, d.gname, d.gkey) AS lim
        FROM (SELECT ck.gk, split_part(ck.gk, '=', 1) AS gname, substr(ck.gk, strpos(ck.gk, '=') + 1) AS gkey, count(*) AS cnt
              FROM ck GROUP BY ck.gk) d
        LEFT JOIN unnest(v_run_keys, v_run_n) AS r(gk, n) ON r.gk = d.gk
      ),
      -- Ranked per key only where the window can reach the limit (used + cnt > lim): a
      -- key with room for all its window rows has every rank ≤ cnt, so none of its rows
      -- can be turned down by it. Same result as ranking every key; in W7 (10 keys per
      -- row, ~2 running per key of limit 5) it sorts a few of the ~1,660 (row, key) pairs
      -- instead of all of them (2026-11-24, docs/benchmarks.md "Several coordinators").
      bad AS (
        SELECT DISTINCT t.id FROM (
          SELECT ck.id, keys.used, keys.lim, row_number() OVER (PARTITION BY ck.gk ORDER BY ck.ord) AS rn
          FROM ck JOIN keys USING (gk)
          WHERE keys.lim IS NOT NULL AND keys.used + keys.cnt > keys.lim
        ) t
        WHERE t.used + t.rn > t.lim
      ),
      kept AS (
        SELECT c.id, c.ord, c.group_keys FROM cand c WHERE NOT EXISTS (SELECT 1 FROM bad b WHERE b.id = c.id)
        ORDER BY c.ord LIMIT v_free
      )
      SELECT (SELECT array_agg(k.id ORDER BY k.ord) FROM kept k), (SELECT count(*) FROM cand),
             (SELECT coalesce(sum(z.skipped), 0) FROM (SELECT max(c.pos) - count(*) AS skipped FROM cand c GROUP BY c.part) z)
      INTO v_ids, v_cands, v_skipped;
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
            AND e.run_at <= now() AND e.claim_at <= (now() AT TIME ZONE 'UTC')
          ORDER BY e.claim_at, e.id
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

  -- Claim after a finish (p_after_finish, sluice_cycle on a grouped task): the group_slots
  -- counters of the claimed rows are NOT moved here. sluice_cycle moves them together with
  -- the finish's decrements (sluice_finish_rows with defer_slots) in one sorted upsert
  -- after this returns, so the cycle takes group_slots rows in one pass, in (group, key)
  -- order, as an enqueue does: no deadlock with a producer, and no skipping of candidates
  -- whose slot row a producer holds (the SKIP LOCKED probe that was here until
  -- 2026-11-24: 2–3 ms per cycle, plus a second upsert of ~600 keys, 9 ms, in W7; see
  -- docs/benchmarks.md "One slot upsert per cycle"). Nothing else here can wait:
  -- sluice_cycle locked the task_runtime row and the partition_stats rows of `parts`
  -- (≥ every partition claimed from) before the finish, and the queued rows of the task
  -- change only under the task_runtime lock.

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

  IF cardinality(v_gks) > 0 AND NOT p_after_finish THEN
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
  ORDER BY e.claim_at, e.id;
END
$function$;
