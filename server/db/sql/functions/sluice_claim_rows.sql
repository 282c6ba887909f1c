-- sluice_claim_rows(coordinator, task, max, lease_ms, parts, finished): claim up to
-- `max` queued executions of a task from the partitions this coordinator owns (and, when
-- `parts` is not NULL, that are in `parts`). sluice_claim(coordinator, task, max,
-- lease_ms) is this with parts NULL (the claim loop's call); sluice_cycle calls it after
-- the finish in the same transaction with the partitions whose counter rows it locked
-- first. `finished`: rows the caller's transaction finished whose task in_flight
-- it has not moved (sluice_cycle's finish; 0 otherwise): counted free here, and moved with
-- this claim's own when it claims anything (one update of the row; else the caller moves
-- them). One call =
-- one round trip and one commit; docs/architecture.md § "Claiming" is the long form.
--
-- Shape:
--  1. cheap exit when none of my partitions has a claimable row: no lock taken, so an
--     idle poll's transaction stays read-only (no xid, no WAL flush at commit); not in a
--     cycle, which holds the task lock already and goes straight to the ranking;
--  2. lock the task_runtime row (its own statement: in READ COMMITTED each statement of
--     a volatile function takes a new snapshot, so the next ones see every counter the
--     previous claimer committed: task_counters' in_flight is read next, in its own);
--     free = least(max, concurrency − in_flight); every
--     scan of an owned partition's head below starts at its claim floor (no claimable
--     row lies before it; raised at the end, step 5);
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
--     primary key); task_counters and partition_stats counters move, in the engine's lock
--     order: task_runtime (the task lock) → executions → partition_stats (sorted) →
--     rate_state (sorted), task_counters only ever written under the task lock;
--     the group_slots counters' moves are logged (slot_deltas) and folded later; the
--     claim floors of the partitions claimed from rise to their first claimable row
--     (migration 20261203000100000_claim_floor: the invariant and who lowers them).
-- Rate limits (issue #19; the blocks marked "Rate limits" below, the rule in
-- server/core/rate-limit.ts): GCRA per scope, rate_state(task, group, key) → tat_ms, the
-- task's own rate as (task, '', ''). After the task lock, with t = clock_timestamp() (read
-- once, after the lock, so successive claimers of a task see a monotone clock): a task whose
-- own allowance is negative claims nothing, and with unit costs `free` is capped by it;
-- group keys whose allowance is negative are *rate-held* and skipped in the head scan
-- exactly like saturated keys; a clogged head's rows of rate-held keys are *parked*
-- (waiting_on = 'rate:<group>=<key>', out of the claim index) with the key's next slot in
-- rate_state.parked_until, and the first claim after that instant (the cheap exit looks for
-- due parked keys too) releases the key's first floor(allowance) + 1 rows: no finish
-- releases them, time does, and nothing is busy-waited. The ranking keeps a candidate only when, for every rated
-- key it carries, the cost ranked before it in that key fits the key's allowance (all or
-- nothing with the concurrency slots: one `bad` test). The claimed rows' costs then move
-- each scope's TAT (upsert after partition_stats, sorted: lock order … → partition_stats →
-- rate_state). Tasks without rates skip all of it (v_grate false, v_task_spec NULL).
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
-- enable_seqscan off (2026-12-01): "whatever the estimates" did not hold for a table of a
-- few pages. A session that made its plans on a fresh database, or right after the table
-- was emptied and vacuumed, chose sequential scans of executions for the cheap exit, the
-- keys in use, the reply and the cycle's partition lookup (on a tiny table a seq scan is
-- the cheapest plan), and kept them as the table grew: bench:soak's coordinators went from
-- keeping up with 2,800 arrivals/s to ~400 finished/s within a minute, in one run of three
-- (auto_explain showed the seq scans; perf: ExecEvalScalarArrayOp, int8eq, heapgetpage).
-- Every statement here has an index path; with seq scans off the planner takes it
-- whatever the statistics (test/integration/engine-plans-small-table.test.ts). The same
-- setting is on sluice_cycle, sluice_finish_rows and sluice_promote_streams.
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
-- p_parts and p_after_finish came (the enqueue/cycle deadlock, 2026-11-24; p_after_finish,
-- unused since the slot counters' logging, became p_finished 2026-12-03); before that file:
-- prisma/migrations 20261123000200000_engine (first),
-- …0500000_engine_perf, …0600000_waiting_rows, …0700000_hot_slots. Priorities (claim order
-- by claim_at): 2026-11-24, issue #19. Weighted fair share (`order: fair`, the v_fg / v_over /
-- v_prev parts): 2026-11-24, issue #19, rule in server/core/fair-share.ts.
-- Fair share's per-key entry point (2026-11-25, issue #19): a fair pass reads each key below
-- its share through executions_fair_idx (task, partition, fair_key, claim_at, id) instead of
-- the partition heads, sets nothing aside for fairness, and the last pass over every key is
-- skipped while a key below its share has claimable rows in another live member's partitions
-- (W6 full: Jain 0.69 → 0.9998–1.0, rate 0.23 → 0.64–0.84 × oldest-first; docs/benchmarks.md § W6).
-- Fair share with rate limits (both issue #19): the fair passes skip rate-held keys like
-- saturated ones, a rate-held key takes no share of the level L (its running rows count as
-- a full key's), a candidate the rates refuse takes no place in its key's fair rank, and
-- what earlier passes kept is spent from each rated key's allowance (v_rspent; v_rout when
-- used up) and, with costs, from the task's (v_tspent) before the next pass ranks.

-- jit off (2026-12-02): with seq scans off, a plan left with no other path for some table is
-- costed above Postgres' jit_above_cost, and the server would then compile that statement
-- with LLVM on every call (a scratch UPDATE in psql: 150 ms per call, 141 ms of it JIT).
-- None of this function's plans has such a node today (engine-plans-small-table.test.ts);
-- this keeps a future one, or a generic plan costed on a huge table, from paying it.
CREATE OR REPLACE FUNCTION public.sluice_claim_rows(p_coordinator uuid, p_task text, p_max integer, p_lease_ms integer, p_parts integer[], p_finished integer)
 RETURNS TABLE(id bigint, task text, partition integer, attempts integer, payload jsonb, groups jsonb, stream_key text, idempotency_key text, lease_token uuid, enqueued_at timestamp with time zone, run_at timestamp with time zone)
 LANGUAGE plpgsql
 SET plan_cache_mode TO 'force_generic_plan'
 SET enable_seqscan TO 'off'
 SET jit TO 'off'
AS $function$
#variable_conflict use_column
DECLARE
  v_rt      record;
  v_tc      record;              -- the task's task_counters row (in_flight, running_floor, claim_floor_low)
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
  v_full    jsonb;                 -- keys whose window rows outnumbered their room (a round that used it up)
  v_again   boolean := false;      -- this round looked again past such keys (it sets nothing aside)
  v_cands   integer;
  v_skipped integer;
  v_pass    integer := 0;
  v_token   uuid := gen_random_uuid();
  v_got     bigint[];
  v_parts   integer[];
  v_gks     text[];
  -- fair share (issue #19; the rule and its tables: server/core/fair-share.ts)
  v_fg      text;                -- the group shared fairly (groups -> g -> 'fair'); NULL = fifo
  v_fw      jsonb;               -- its weights ({"acme": 3}, default 1)
  v_over    jsonb;               -- waiting keys at or over their share: skipped by a fair pass
  v_lvl     numeric;             -- the fair level L (running ÷ weight each waiting key is due)
  v_skip_obj jsonb;              -- what the scan skips: v_sat_obj (+ v_over in a fair pass)
  v_fair1   boolean := false;    -- in a fair pass (up to 3, then one pass over every key)
  v_fpass   integer := 0;
  v_prev    bigint[] := '{}';    -- rows the fair passes kept (the last pass adds to them)
  v_aside   text[];              -- the keys whose head rows a round sets aside (v_sat; v_over when fair)
  v_fair_rel boolean := false;   -- the last pass released the fair keys' set-aside rows once
  v_fkeys   text[];              -- a fair pass's keys below their share, most behind first …
  v_fq      integer[];           -- … and how many rows each is short of it (executions_fair_idx probes)
  v_hold    integer := 0;        -- slots the last pass leaves to other members' keys below their share
  v_nobind  boolean;             -- the limits already give every waiting key its share: claim order
  v_run_min timestamptz;         -- the earliest start among the running rows read (the running floor's next value)
  v_started timestamptz;         -- the earliest start of the rows this claim starts
  v_minlim  integer;             -- the lowest limit of any key of the task (overrides included): a key running fewer is below its own
  -- fair share × rate limits: what the fair passes' rows spent of each rated key's allowance
  -- and of the task's own (with costs), and the keys whose allowance they used up
  v_rspent  jsonb := '{}';       -- {"tenant=acme": cost kept by earlier passes}
  v_rout    jsonb := '{}';       -- keys whose allowance less v_rspent is negative: skipped
  v_tspent  double precision := 0;
  v_tcost   double precision;
  -- Rate limits (issue #19)
  v_grate     boolean := false;       -- some group of the task has a rate
  v_task_spec jsonb;                  -- the task's own rate, NULL = none
  v_task_rb   double precision;       -- its allowance now (cost units)
  v_cost      text[];                 -- payload path of an execution's cost, NULL = 1 each
  v_now_ms    double precision;
  v_rheld_obj jsonb := '{}';          -- rate-held keys now, skipped like saturated ones
  v_costs     double precision[];     -- the claimed rows' costs, as v_got
  v_parked    text[];                 -- keys whose rows this round parked
  -- The claim floor (issue #18; migration 20261203000100000_claim_floor)
  v_floor     timestamp without time zone[];  -- each owned partition's (v_owned's order), as (claim_at, id):
  v_floor_id  bigint[];                       -- no claimable row before it in the claim index's order
  v_low       jsonb;                          -- task_counters.claim_floor_low as this claim last read it
                                              -- (with this cycle's finish's lowerings, v_fin_low)
  v_fin       jsonb;                          -- a cycle's finish's partition moves, left to this claim
  v_fin_low   jsonb;                          -- … their claim-floor lowerings (partition → claim_at)
  v_rel_p     integer[];                      -- partitions and claim_at of rows a release here made claimable
  v_rel_a     timestamp without time zone[];
  v_low_new   jsonb;                          -- claim_floor_low after a release here lowered it (else NULL)
BEGIN
  -- Driven by my partition_owners rows, one LATERAL probe of the claim index each (a
  -- subquery with LIMIT is never flattened; with ORDER BY in the index's order, a seq scan
  -- could only win by sorting every match). As a plain EXISTS join, a generic plan made
  -- while the task's rows were mostly queued seq-scanned executions from the start of the
  -- heap (finished rows first) for the first match: 15–19 ms per claim and per idle poll
  -- at 120k rows, growing with every row kept.
  -- Only for a claim of its own (p_parts NULL: the claim loop, an idle poll). A cycle's claim
  -- (p_parts given) runs after its finish, under the task lock the cycle already holds, and
  -- the probe then only read again what the ranking reads next: under a held snapshot the
  -- claim index keeps the entries of every row claimed since, and both walked all of them
  -- (bench:soak's hold, 2026-12-02: 12.5 ms and 8,510 buffers per cycle for this probe, the
  -- ranking 12.6 ms, of ~38 ms the cycle held the task lock).
  -- From each partition's claim floor (sluice_claim_floors; read here in this statement's
  -- snapshot without a lock: a row made claimable commits with its floor's lowering).
  IF p_parts IS NULL AND NOT EXISTS (
    SELECT 1 FROM partition_owners o
    LEFT JOIN partition_stats ps ON ps.task = o.task AND ps.partition = o.partition
    CROSS JOIN LATERAL (
      SELECT 1 FROM executions e
      WHERE e.task = o.task AND e.partition = o.partition AND e.state = 'queued'
        AND e.waiting_on IS NULL AND e.run_at <= now() AND e.claim_at <= (now() AT TIME ZONE 'UTC')
        AND e.claim_at >= coalesce(least(ps.claim_floor, ((SELECT t.claim_floor_low FROM task_counters t WHERE t.task = p_task) ->> o.partition::text)::timestamp), '-infinity')
      ORDER BY e.claim_at, e.id  -- the claim index's order: no plan but its range scan avoids a sort of every match
      LIMIT 1
    ) x
    WHERE o.owner = p_coordinator AND o.task = p_task
  ) AND NOT EXISTS (
    -- Rate limits (issue #19): a rate-parked key whose next slot is due (released below)
    SELECT 1 FROM rate_state rs WHERE rs.task = p_task AND rs.parked_until <= extract(epoch FROM clock_timestamp()) * 1000
  ) THEN
    RETURN;
  END IF;
  SELECT t.concurrency, t.paused, t.groups, t.active, t.rate INTO v_rt
  FROM task_runtime t WHERE t.task = p_task FOR NO KEY UPDATE;
  IF NOT FOUND OR v_rt.paused OR NOT v_rt.active THEN RETURN; END IF;
  -- The counters in a statement of their own, after the lock: its snapshot holds what the
  -- previous holder committed (a join in the locking statement would re-read only the
  -- locked row after waiting, and keep task_counters' row as the first snapshot had it).
  -- Read here, not again: under a held snapshot every read of the row walks the versions
  -- each cycle added since (task_runtime's wide row: ~1,200 buffers 25 s into bench:soak's
  -- hold, before these moved to task_counters; migration 20261207000100000_task_counters).
  SELECT c.in_flight, c.running_floor, c.claim_floor_low INTO v_tc FROM task_counters c WHERE c.task = p_task;
  IF NOT FOUND THEN RETURN; END IF;
  -- A cycle's finish left its partitions' moves to this claim (sluice_finish_partitions.sql
  -- says why): each partition it claims from gets them in the one update below, the others
  -- after it; its floors' lowerings count for this claim's scans from here on.
  IF p_parts IS NOT NULL THEN
    v_fin := nullif(current_setting('sluice.finish_moves', true), '')::jsonb;
    SELECT jsonb_object_agg(f.p::text, f.l) INTO v_fin_low
    FROM jsonb_to_recordset(v_fin) AS f(p integer, l timestamp without time zone) WHERE f.l IS NOT NULL;
  END IF;
  v_low := sluice_floor_low_least(v_tc.claim_floor_low, v_fin_low);
  -- Circuit breaker (issue #23): an open breaker claims nothing, whichever member asks. The
  -- coordinators' gates (server/coordinator/breaker-gate.ts) stop asking once they have
  -- seen the trip; a member that has not yet (its notification or refresh still to come:
  -- under CI load one claimed 4 rows inside the cool-down, 2026-12-02) is refused here.
  -- Read after the task lock, in its own statement: the transaction that trips the breaker
  -- takes the task lock too (server/coordinator/breaker-store.ts), so a claim either ended
  -- before the trip or sees it. The cool-down's end moves the row to half-open
  -- (admitProbes) before the probes' claim. One primary-key probe of a table with a row
  -- per breaker-enabled task; no lock on it (lock order: task_breakers → task_runtime is
  -- the trip's, and no claim or finish locks task_breakers).
  IF EXISTS (SELECT 1 FROM task_breakers b WHERE b.task = p_task AND b.state = 'open') THEN
    RETURN;
  END IF;
  v_free := least(p_max, v_rt.concurrency - greatest(v_tc.in_flight - p_finished, 0));
  IF v_free <= 0 THEN RETURN; END IF;

  -- Rate limits (issue #19): the task's own allowance, and the group keys held by theirs.
  v_grate := jsonb_path_exists(v_rt.groups, '$.*.rate');
  v_task_spec := v_rt.rate -> 'task';
  IF v_grate OR v_task_spec IS NOT NULL THEN
    v_now_ms := extract(epoch FROM clock_timestamp()) * 1000;
    IF v_rt.rate ? 'cost' THEN
      v_cost := ARRAY(SELECT jsonb_array_elements_text(v_rt.rate -> 'cost'));
    END IF;
    IF v_task_spec IS NOT NULL THEN
      v_task_rb := sluice_rate_allowance(v_task_spec,
        (SELECT rs.tat_ms FROM rate_state rs WHERE rs.task = p_task AND rs.group_name = '' AND rs.group_key = ''), v_now_ms);
      IF v_task_rb < 0 THEN RETURN; END IF;
      -- unit costs: at most floor(allowance) + 1 rows (with costs, the cut is made below)
      IF v_cost IS NULL THEN v_free := least(v_free, floor(v_task_rb)::integer + 1); END IF;
    END IF;
    IF v_grate THEN
      -- rows of the task's scopes that started work within about a burst window (slot GC
      -- deletes the others), by primary key range
      SELECT coalesce(jsonb_object_agg(rs.group_name || '=' || rs.group_key, true), '{}') INTO v_rheld_obj
      FROM rate_state rs
      WHERE rs.task = p_task AND rs.group_name <> '' AND rs.tat_ms > v_now_ms
        AND sluice_rate_allowance(sluice_key_rate(v_rt.groups, rs.group_name, rs.group_key), rs.tat_ms, v_now_ms) < 0;
      -- Parked keys whose next slot is due: their first floor(allowance) + 1 rows (claim
      -- order, any partition; executions_waiting_idx) go back into the claim index, so this
      -- claim (or the owner of their partition) takes them; the key stays parked while rows
      -- remain, not released again before those tokens are spent.
      WITH due AS (
        SELECT rs.group_name, rs.group_key, 'rate:' || rs.group_name || '=' || rs.group_key AS w,
               greatest(floor(sluice_rate_allowance(k.r, rs.tat_ms, v_now_ms))::integer + 1, 1) AS n,
               k.r
        FROM rate_state rs CROSS JOIN LATERAL (SELECT sluice_key_rate(v_rt.groups, rs.group_name, rs.group_key) AS r) k
        WHERE rs.task = p_task AND rs.parked_until <= v_now_ms AND k.r IS NOT NULL
      ),
      rel AS (
        UPDATE executions e SET waiting_on = NULL
        WHERE e.ctid = ANY (ARRAY(
          SELECT x.tid FROM due d CROSS JOIN LATERAL (
            SELECT w.ctid AS tid FROM executions w
            WHERE w.task = p_task AND w.state = 'queued' AND w.waiting_on = d.w
            ORDER BY w.claim_at, w.id LIMIT d.n) x)) AND e.state = 'queued'
        RETURNING e.partition, e.claim_at
      ),
      -- the released rows' partitions' claim floors come down to them (any partition)
      low AS (SELECT sluice_claim_floor_lower(p_task, array_agg(r.partition), array_agg(r.claim_at)) AS v FROM rel r),
      -- still parked: a row beyond the first n (this statement's snapshot still shows the
      -- released ones waiting)
      parked AS (
        UPDATE rate_state rs
        SET parked_until = CASE WHEN EXISTS (
              SELECT 1 FROM executions w WHERE w.task = p_task AND w.state = 'queued' AND w.waiting_on = d.w
              ORDER BY w.waiting_on, w.claim_at, w.id OFFSET d.n LIMIT 1)
            THEN v_now_ms + d.n * (d.r ->> 'per')::double precision / (d.r ->> 'limit')::double precision END
        FROM due d
        WHERE rs.task = p_task AND rs.group_name = d.group_name AND rs.group_key = d.group_key
        RETURNING 1)
      SELECT low.v INTO v_low_new FROM low;
      v_low := sluice_floor_low_least(coalesce(v_low_new, v_low), v_fin_low);  -- (that release may have lowered it)
    END IF;
  END IF;

  SELECT array_agg(o.partition ORDER BY o.partition) INTO v_owned
  FROM partition_owners o WHERE o.owner = p_coordinator AND o.task = p_task
    AND (p_parts IS NULL OR o.partition = ANY (p_parts));
  IF v_owned IS NULL THEN RETURN; END IF;
  -- Every scan of an owned partition's head below starts at its claim floor (issue #18,
  -- migration 20261203000100000_claim_floor): no claimable row lies before it, and under a
  -- held snapshot the index entries there are those of every row claimed or set aside since
  -- (19.8 ms and 11,500 buffers of the ranking per cycle 25 s into bench:soak's hold, before).
  -- Read again after a release here that made rows claimable.
  SELECT f.ats, f.ids INTO v_floor, v_floor_id FROM sluice_claim_floors(p_task, v_owned, v_low) f;

  IF v_rt.groups = '{}'::jsonb THEN
    SELECT array_agg(c.id ORDER BY c.claim_at, c.id) INTO v_ids FROM (
      SELECT x.id, x.claim_at
      FROM unnest(v_owned, v_floor, v_floor_id) AS p(part, fl, fid)
      CROSS JOIN LATERAL (
        SELECT e.id, e.claim_at FROM executions e
        WHERE e.task = p_task AND e.partition = p.part AND e.state = 'queued' AND e.waiting_on IS NULL
          AND e.run_at <= now() AND e.claim_at <= (now() AT TIME ZONE 'UTC') AND (e.claim_at, e.id) >= (p.fl, p.fid)
        ORDER BY e.claim_at, e.id
        LIMIT v_free
      ) x
      ORDER BY x.claim_at, x.id
      LIMIT v_free
    ) c;
  ELSE
    -- Keys in use = the keys of the task's running rows, with how many each has, read from
    -- at most `concurrency` rows through executions_running_idx (every claim and finish
    -- moves them under the task_runtime lock), so exact whatever group_slots says: its
    -- in_flight is the same count once the logged moves are folded (slot_deltas), and a
    -- drifted counter could never let a key over its limit. Saturated keys: those at
    -- their limit.
    -- v_minlim: no key's limit is lower, so a key with fewer rows (running, or running plus
    -- window rows in the ranking) is below its own and its limit is not looked up (W7: 10
    -- keys a row, ~2 running per key of limit 5 — most of ~800 lookups a claim skipped)
    SELECT min(least((g.value ->> 'limit')::integer, (SELECT min(o.value::integer) FROM jsonb_each_text(g.value -> 'overrides') o)))
    INTO v_minlim FROM jsonb_each(v_rt.groups) g;
    -- From the running floor (task_counters.running_floor ≤ every running row's start;
    -- migration 20261202000200000_running_floor): under a held snapshot the index keeps an
    -- entry for every execution that ran since, and reading the task's whole range read them
    -- all (24,392 buffers per claim 20 s into bench:soak's hold).
    SELECT coalesce(array_agg(r.gk), '{}'), coalesce(array_agg(r.n), '{}'),
           coalesce(array_agg(r.gk) FILTER (
             WHERE r.n >= v_minlim AND r.n >= sluice_group_limit(v_rt.groups, split_part(r.gk, '=', 1), substr(r.gk, strpos(r.gk, '=') + 1))), '{}'),
           min(r.lo)
    INTO v_run_keys, v_run_n, v_sat, v_run_min
    FROM (
      SELECT k.gk, count(*)::integer AS n, min(e.started_at) AS lo
      FROM executions e CROSS JOIN LATERAL unnest(e.group_keys) AS k(gk)
      WHERE e.task = p_task AND e.state = 'running' AND e.started_at >= v_tc.running_floor
      GROUP BY k.gk
    ) r;
    SELECT coalesce(jsonb_object_agg(k, true), '{}') INTO v_sat_obj FROM unnest(v_sat) AS k;
    -- Rate limits (issue #19): rate-held keys are skipped in the head scan like saturated
    -- ones (v_sat stays the saturated keys alone: their rows are set aside on the key, a
    -- rate-held key's are parked on 'rate:' + key)
    v_sat_obj := v_sat_obj || v_rheld_obj;
    -- Fair share (issue #19, the rule: server/core/fair-share.ts): a task with `order: fair`
    -- marks its group "fair" in task_runtime.groups. Fair passes (at the top of the loop)
    -- skip the waiting keys already at their share and keep a key's rows only up to it; what
    -- they leave free, a last pass over every key fills (fair order), so no slot stays idle.
    -- Limits are untouched: saturated keys stay skipped, the ranking is as before.
    v_skip_obj := v_sat_obj;
    SELECT g.key INTO v_fg FROM jsonb_each(v_rt.groups) g WHERE g.value ? 'fair' LIMIT 1;
    v_fw := coalesce(v_rt.groups -> v_fg -> 'weights', '{}');
    v_fair1 := v_fg IS NOT NULL;
    -- window: candidates ranked per round (1.5× the free slots: 2× ranked a third more
    -- rows for ~1% more admitted in W2); read: at most this many head rows per partition
    -- are looked at to find them (rows of saturated keys are skipped in the index scan
    -- itself, but only up to this bound).
    v_window := least(v_free * 3 / 2 + 16, 2000);
    v_read := least(v_window * 16 + 256, 8000);
    LOOP
      v_pass := v_pass + 1;
      IF v_fair1 THEN
        -- Fair pass: waiting keys of the fair group (group_slots.queued > 0, ≤ 1,000, no lock)
        -- with their running counts (incl. rows earlier passes kept) and weights. The
        -- capacity the waiting keys share is the concurrency less what keys with nothing
        -- waiting (or at their limit) hold; L = that ÷ Σ weights of the waiting keys; skipped: keys at L or over.
        WITH w AS (
          SELECT gs.group_key AS k FROM group_slots gs
          WHERE gs.task = p_task AND gs.group_name = v_fg AND gs.queued > 0 LIMIT 1000
        ), f AS (
          SELECT coalesce(r.gk, v_fg || '=' || w.k) AS gk, coalesce(r.n, 0) AS n,
                 sluice_group_limit(v_rt.groups, v_fg, coalesce(w.k, substr(r.gk, strpos(r.gk, '=') + 1))) AS lim,
                 -- a key at its limit (counting earlier passes' rows) takes no share, nor does a
                 -- rate-held key (v_sat_obj holds v_rheld_obj and v_rout): rows its rate refuses
                 -- do not count toward fair share, its running rows are held like a full key's
                 w.k IS NOT NULL AND coalesce(r.n, 0) < coalesce(sluice_group_limit(v_rt.groups, v_fg, w.k), 2147483647)
                   AND NOT (v_sat_obj ? (v_fg || '=' || w.k)) AS waits,
                 coalesce((v_fw ->> coalesce(w.k, substr(r.gk, strpos(r.gk, '=') + 1)))::numeric, 1) AS wt
          FROM (SELECT x.gk, x.n FROM unnest(v_run_keys, v_run_n) AS x(gk, n) WHERE split_part(x.gk, '=', 1) = v_fg) r
          FULL JOIN w ON r.gk = v_fg || '=' || w.k
        ), l AS (
          SELECT (v_rt.concurrency - coalesce(sum(f.n) FILTER (WHERE NOT f.waits), 0)) / sum(f.wt) FILTER (WHERE f.waits) AS lvl FROM f
        )
        , below AS (
          -- keys below their share get back (from executions_waiting_idx) as many of their
          -- rows set aside as they are short of it: their oldest, so at the head of the claim
          -- index (the first fair pass only; one probe per such key)
          SELECT f.gk, ceil(l.lvl * f.wt - f.n)::integer AS d FROM f, l WHERE v_fpass = 0 AND f.waits AND f.n / f.wt < l.lvl
        ), rel AS (
          UPDATE executions e SET waiting_on = NULL
          WHERE e.ctid = ANY (ARRAY(
            SELECT x.tid FROM below b CROSS JOIN LATERAL (
              SELECT w.ctid AS tid FROM executions w
              WHERE w.task = p_task AND w.waiting_on = b.gk AND w.state = 'queued'
              ORDER BY w.claim_at, w.id LIMIT b.d
            ) x)) AND e.state = 'queued'
          RETURNING e.partition, e.claim_at
        )
        , quota AS (
          -- the keys a fair pass reads directly (executions_fair_idx, one probe per key and
          -- owned partition): below their share, the furthest behind first (ties in random
          -- order), while what the keys before them are short of is below twice the slots left
          SELECT q.gk, q.q, q.o FROM (
            SELECT b.gk, b.q, row_number() OVER w AS o, sum(b.q) OVER w AS cum
            FROM (
              SELECT f.gk, ceil(l.lvl * f.wt - f.n)::integer AS q, f.n / f.wt AS lv, random() AS rnd
              FROM f, l WHERE f.waits AND f.n / f.wt < l.lvl
            ) b
            WINDOW w AS (ORDER BY b.lv, b.rnd ROWS UNBOUNDED PRECEDING)
          ) q WHERE q.cum - q.q < 2 * (v_free - cardinality(v_prev))
        )
        SELECT l.lvl, coalesce((SELECT jsonb_object_agg(f.gk, true) FROM f WHERE f.waits AND f.n / f.wt >= l.lvl), '{}'),
               (SELECT array_agg(q.gk ORDER BY q.o) FROM quota q), (SELECT array_agg(q.q ORDER BY q.o) FROM quota q),
               -- the limits already give every waiting key its share (L × weight ≥ limit), or
               -- one key alone waits (nobody to share with); all waiting keys seen: fewer than
               -- the 1,000 read
               l.lvl IS NOT NULL AND (SELECT count(*) FROM w) < 1000
                 AND ((SELECT count(*) FROM f WHERE f.waits) = 1
                      OR NOT EXISTS (SELECT 1 FROM f WHERE f.waits AND (f.lim IS NULL OR l.lvl * f.wt < f.lim)))
               , r.p, r.a
        INTO v_lvl, v_over, v_fkeys, v_fq, v_nobind, v_rel_p, v_rel_a
        FROM l, (SELECT count(*) AS n, array_agg(x.partition) AS p, array_agg(x.claim_at) AS a FROM rel x) r;
        -- the released rows are claimable from this pass on: their floors come down to them
        v_low_new := sluice_claim_floor_lower(p_task, v_rel_p, v_rel_a);
        IF v_low_new IS NOT NULL THEN
          v_low := sluice_floor_low_least(v_low_new, v_fin_low);
          SELECT f.ats, f.ids INTO v_floor, v_floor_id FROM sluice_claim_floors(p_task, v_owned, v_low) f;
        END IF;
        IF v_nobind THEN
          -- Nobody waits for anybody's share: every waiting key of the fair group can run at
          -- its limit at once within the capacity they share, or one key alone waits (W6 once
          -- the small tenants ran dry), so fair order cannot change who
          -- runs and this claim goes in claim order, as a fifo task's (the rule: sharesBind in
          -- server/core/fair-share.ts). The release above (set-aside rows of keys below their
          -- share) has run. W2 with fair share by tenant (10 × limit 20 = concurrency 200):
          -- the fair passes probed each tenant per partition for the one or two rows its limit
          -- had room for, every claim (docs/benchmarks.md, thirteenth session).
          v_fg := NULL;
          v_fair1 := false;
          v_lvl := NULL;
          v_fkeys := NULL;
          v_fq := NULL;
          v_skip_obj := v_sat_obj;
        ELSIF v_lvl IS NULL THEN
          v_fair1 := false;
          v_skip_obj := v_sat_obj;
        ELSE
          v_skip_obj := v_sat_obj || v_over;
        END IF;
      END IF;
      WITH cand AS (
        SELECT x.id, x.group_keys, x.part, x.pos, row_number() OVER (ORDER BY x.claim_at, x.id) AS ord,
               -- Rate limits (issue #19): the row's cost (payload read by primary key, window rows only)
               CASE WHEN v_cost IS NULL THEN 1::double precision
                    ELSE (SELECT sluice_rate_cost(e2.payload, v_cost) FROM executions e2 WHERE e2.id = x.id) END AS cost
        FROM ((
          SELECT y.id, y.claim_at, y.group_keys, p.part, y.pos
          FROM unnest(v_owned, v_floor, v_floor_id) AS p(part, fl, fid)
          CROSS JOIN LATERAL (
            -- the outer LIMIT stops the scan as soon as `window` rows passed the filter;
            -- the inner one bounds what a clogged head can cost. pos: the row's place in
            -- the head (rows before it that it does not count were skipped as saturated)
            SELECT h.id, h.claim_at, h.group_keys, h.pos FROM (
              SELECT e.id, e.claim_at, e.group_keys, row_number() OVER (ORDER BY e.claim_at, e.id) AS pos
              FROM executions e
              WHERE e.task = p_task AND e.partition = p.part AND e.state = 'queued' AND e.waiting_on IS NULL
                AND e.run_at <= now() AND e.claim_at <= (now() AT TIME ZONE 'UTC') AND (e.claim_at, e.id) >= (p.fl, p.fid)
              ORDER BY e.claim_at, e.id
              LIMIT v_read
            ) h
            -- jsonb ?| looks each of the row's keys up in the sorted keys of an object
            -- (binary search); `group_keys && v_sat` compared every pair: ~3 µs per row
            -- read with 200 saturated keys
            WHERE NOT (v_skip_obj ?| h.group_keys) AND h.id <> ALL (v_prev)  -- (fair share: v_skip_obj, v_prev)
            LIMIT v_window
          ) y
          WHERE NOT v_fair1  -- (a fair pass reads the keys below their share directly, next)
          ORDER BY y.claim_at, y.id
          LIMIT v_window
          ) UNION ALL (
          -- Fair pass (issue #19): each key below its share read directly, per owned
          -- partition, through executions_fair_idx (task, partition, fair_key, claim_at, id):
          -- its oldest claimable rows that touch no saturated or rate-held key, as many as it
          -- is short of its share (+ 2, for rows the ranking turns down), however deep the
          -- flooding key's rows lie in the head. Rows whose fair_key is NULL (written before
          -- the task shared fairly) are reached by the last pass only.
          SELECT z.id, z.claim_at, z.group_keys, z.part, z.pos FROM (
            SELECT y.id, y.claim_at, y.group_keys, p.part, y.pos, fk.q,
                   row_number() OVER (PARTITION BY fk.gk ORDER BY y.claim_at, y.id) AS kr
            FROM unnest(v_fkeys, v_fq) AS fk(gk, q)
            CROSS JOIN unnest(v_owned, v_floor, v_floor_id) AS p(part, fl, fid)
            CROSS JOIN LATERAL (
              SELECT h.id, h.claim_at, h.group_keys, h.pos FROM (
                SELECT e.id, e.claim_at, e.group_keys, row_number() OVER (ORDER BY e.claim_at, e.id) AS pos
                FROM executions e
                WHERE e.task = p_task AND e.partition = p.part AND e.fair_key = fk.gk
                  AND e.state = 'queued' AND e.waiting_on IS NULL
                  AND e.run_at <= now() AND e.claim_at <= (now() AT TIME ZONE 'UTC') AND (e.claim_at, e.id) >= (p.fl, p.fid)
                ORDER BY e.claim_at, e.id
                LIMIT v_read
              ) h
              WHERE NOT (v_skip_obj ?| h.group_keys) AND h.id <> ALL (v_prev)
              LIMIT fk.q + 2
            ) y
            WHERE v_fair1
          ) z WHERE z.kr <= z.q + 2
          )
        ) x
      ),
      ck AS (
        -- c.cost: rate limits (issue #19), summed per key in `bad` below
        SELECT c.id, c.ord, c.cost, k.gk
        FROM cand c CROSS JOIN LATERAL unnest(c.group_keys) AS k(gk)
      ),
      -- Each distinct key of the window with its running count (from the arrays read
      -- above: no table access, so the cost follows the window and the concurrency, not
      -- the number of keys), its limit and how many window rows carry it. MATERIALIZED:
      -- looked up once per key, not once per ranked row.
      keys AS MATERIALIZED (
        SELECT d.gk, d.cnt, coalesce(r.n, 0) AS used,
               -- NULL (not ranked) when even the lowest limit of the task has room for all of it
               CASE WHEN coalesce(r.n, 0) + d.cnt > v_minlim THEN sluice_group_limit(v_rt.groups, d.gname, d.gkey) END AS lim,
               -- Rate limits (issue #19): the key's allowance now, NULL = no rate (one
               -- primary-key probe per key, only when some group has a rate)
               CASE WHEN v_grate THEN sluice_rate_allowance(sluice_key_rate(v_rt.groups, d.gname, d.gkey),
                 (SELECT rs.tat_ms FROM rate_state rs WHERE rs.task = p_task AND rs.group_name = d.gname AND rs.group_key = d.gkey),
                 v_now_ms) - coalesce((v_rspent ->> d.gk)::double precision, 0) END AS rb  -- less what earlier fair passes kept
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
        UNION
        -- Rate limits (issue #19): the cost ranked before the row in its key (cb) must fit
        -- the key's allowance; only rate-limited keys are ranked (rb IS NULL otherwise)
        SELECT u.id FROM (
          SELECT ck.id, keys.rb, sum(ck.cost) OVER (PARTITION BY ck.gk ORDER BY ck.ord) - ck.cost AS cb
          FROM ck JOIN keys USING (gk)
          WHERE keys.rb IS NOT NULL
        ) u
        WHERE u.cb > u.rb
      ),
      -- fair share: a candidate's place = (running(key) + its rank in the key) ÷ weight(key)
      -- for its key of the fair group (water-filling); none without a fair group (fifo). A
      -- fair pass keeps a key's rows only while the key is below L before taking them. The
      -- rank counts only rows the limits and rates admit: a row refused (`bad`, e.g. by a
      -- rate) takes no place in its key's share.
      -- MATERIALIZED: computed once. Inlined, the generic plan (rows=1 estimated for `kept`'s
      -- anti join) put it on the inner side of a nested loop and re-ran its join with `keys`
      -- once per candidate even with no fair group: 114 loops × 808 keys, 23 of the 30 ms of
      -- a W7 ranking (2026-11-24, docs/benchmarks.md "W7 beside W1, tenth session").
      fpos AS MATERIALIZED (
        SELECT g.id, (k.used + g.fr) / coalesce((v_fw ->> substr(g.gk, strpos(g.gk, '=') + 1))::numeric, 1) AS pos,
               (k.used + g.fr - 1) / coalesce((v_fw ->> substr(g.gk, strpos(g.gk, '=') + 1))::numeric, 1) AS before
        FROM (
          SELECT ck.id, ck.gk, row_number() OVER (PARTITION BY ck.gk ORDER BY ck.ord) AS fr
          FROM ck WHERE v_fg IS NOT NULL AND split_part(ck.gk, '=', 1) = v_fg AND NOT EXISTS (SELECT 1 FROM bad b WHERE b.id = ck.id)
        ) g JOIN keys k USING (gk)
      ),
      kept AS (
        SELECT c.id, c.ord, c.group_keys FROM cand c LEFT JOIN fpos f ON f.id = c.id
        WHERE NOT EXISTS (SELECT 1 FROM bad b WHERE b.id = c.id) AND (NOT v_fair1 OR coalesce(f.before, 0) < v_lvl)
        ORDER BY coalesce(f.pos, 0), c.ord LIMIT v_free - cardinality(v_prev) - v_hold
      )
      SELECT (SELECT array_agg(k.id ORDER BY k.ord) FROM kept k), (SELECT count(*) FROM cand),
             (SELECT coalesce(sum(z.skipped), 0) FROM (SELECT max(c.pos) - count(*) AS skipped FROM cand c GROUP BY c.part) z),
             (SELECT jsonb_object_agg(k.gk, true) FROM keys k WHERE k.lim IS NOT NULL AND k.used + k.cnt > k.lim)
      INTO v_ids, v_cands, v_skipped, v_full;
      -- Fair share: a fair pass's rows count as running for the next pass (ranking and
      -- fair order see them); while slots are left and a pass found rows, look again (≤ 3
      -- fair passes; keys that reached L are then skipped), then once over every key. Fair
      -- passes do not count as rounds. A last pass (every key) left short with a thin head
      -- (the window did not fill) while rows of the fair group wait set aside releases them
      -- (up to the slots left, per key) and looks once more: set aside for fairness, they
      -- must never leave a slot idle (giving them back only as the key's executions finish,
      -- 2 at a time, ran W6 at 0.13× oldest-first; on every short pass, Jain fell to 0.46).
      IF v_fair1 OR (v_fg IS NOT NULL AND NOT v_fair_rel AND v_cands < v_window AND coalesce(cardinality(v_ids), 0) < v_free - cardinality(v_prev) - v_hold) THEN
        -- Rate limits × fair share: a pass's rows are claimed with the others at the end, so
        -- what they spend is counted here: with costs, the task's own allowance cuts them
        -- now (what earlier passes spent first; a prefix, as the cut below the loop), and
        -- each rated key's cost goes to v_rspent (the next pass's `rb`); a key it leaves
        -- negative is skipped (v_rout) and takes no share.
        IF v_ids IS NOT NULL AND v_task_spec IS NOT NULL AND v_cost IS NOT NULL THEN
          SELECT array_agg(z.id ORDER BY z.ord), sum(z.cost) INTO v_ids, v_tcost FROM (
            SELECT c.id, c.ord, w.cost, sum(w.cost) OVER (ORDER BY c.ord) - w.cost AS tcb
            FROM unnest(v_ids) WITH ORDINALITY AS c(id, ord)
            CROSS JOIN LATERAL (SELECT sluice_rate_cost(e.payload, v_cost) AS cost FROM executions e WHERE e.id = c.id) w
          ) z WHERE z.tcb <= v_task_rb - v_tspent;
          v_tspent := v_tspent + coalesce(v_tcost, 0);
        END IF;
        IF v_ids IS NOT NULL AND v_grate THEN
          SELECT v_rspent || coalesce(jsonb_object_agg(z.gk, coalesce((v_rspent ->> z.gk)::double precision, 0) + z.c), '{}')
          INTO v_rspent FROM (
            SELECT k.gk, sum(CASE WHEN v_cost IS NULL THEN 1::double precision ELSE sluice_rate_cost(e.payload, v_cost) END) AS c
            FROM executions e CROSS JOIN LATERAL unnest(e.group_keys) AS k(gk)
            WHERE e.id = ANY (v_ids)
              AND sluice_key_rate(v_rt.groups, split_part(k.gk, '=', 1), substr(k.gk, strpos(k.gk, '=') + 1)) IS NOT NULL
            GROUP BY k.gk) z;
          SELECT coalesce(jsonb_object_agg(s.key, true), '{}') INTO v_rout FROM jsonb_each_text(v_rspent) s
          CROSS JOIN LATERAL (SELECT split_part(s.key, '=', 1) AS gname, substr(s.key, strpos(s.key, '=') + 1) AS gkey) p
          WHERE sluice_rate_allowance(sluice_key_rate(v_rt.groups, p.gname, p.gkey),
                  (SELECT rs.tat_ms FROM rate_state rs WHERE rs.task = p_task AND rs.group_name = p.gname AND rs.group_key = p.gkey),
                  v_now_ms) - s.value::double precision < 0;
          v_sat_obj := v_sat_obj || v_rout;
        END IF;
        IF v_ids IS NOT NULL THEN
          SELECT r.keys, r.n INTO v_run_keys, v_run_n FROM sluice_run_keys_plus(v_run_keys, v_run_n, v_ids) r;
          v_prev := v_prev || v_ids;
        END IF;
        v_fpass := v_fpass + 1;
        v_pass := v_pass - 1;
        IF cardinality(v_prev) >= v_free OR coalesce(v_task_rb - v_tspent < 0, false) THEN
          v_ids := NULL;
          EXIT;
        END IF;
        IF NOT v_fair1 THEN
          v_fair_rel := true;
          v_ids := NULL;
          WITH rel AS (
            UPDATE executions e SET waiting_on = NULL
            WHERE e.ctid = ANY (ARRAY(
              SELECT x.tid FROM (
                SELECT gs.group_key FROM group_slots gs
                WHERE gs.task = p_task AND gs.group_name = v_fg AND gs.queued > 0
                  -- not keys the scan skips anyway (at their limit, rate-held)
                  AND NOT (v_sat_obj ? (v_fg || '=' || gs.group_key)) LIMIT 1000
              ) k
              CROSS JOIN LATERAL (
                SELECT w.ctid AS tid FROM executions w
                WHERE w.task = p_task AND w.waiting_on = v_fg || '=' || k.group_key AND w.state = 'queued'
                ORDER BY w.claim_at, w.id
                LIMIT v_free - cardinality(v_prev) - v_hold
              ) x)) AND e.state = 'queued'
            RETURNING e.partition, e.claim_at
          )
          SELECT count(*), array_agg(r.partition), array_agg(r.claim_at) INTO v_set, v_rel_p, v_rel_a FROM rel r;
          -- claimable again: their floors come down to them before the pass looks again
          v_low_new := sluice_claim_floor_lower(p_task, v_rel_p, v_rel_a);
          IF v_low_new IS NOT NULL THEN
            v_low := sluice_floor_low_least(v_low_new, v_fin_low);
            SELECT f.ats, f.ids INTO v_floor, v_floor_id FROM sluice_claim_floors(p_task, v_owned, v_low) f;
          END IF;
          CONTINUE WHEN v_set > 0;
          EXIT;
        END IF;
        -- A fair pass reads the keys below their share through executions_fair_idx, so the
        -- rows of keys at their share are never in its way and nothing is set aside for
        -- fairness (until 2026-11-25 the fair passes scanned the head and set a flooding
        -- key's rows aside there: W6 at 0.23× oldest-first). Look again while a pass found
        -- rows (≤ 3 fair passes), then once over every key.
        IF v_ids IS NULL OR v_fpass >= 3 THEN
          -- ... but not the slots that keys still below their share can use in partitions
          -- another coordinator owns: those are its owner's to fill (its next claim or cycle),
          -- not the flooding key's here. Without this a member whose partitions ran out of
          -- the other tenants' rows gave every slot it could take to the flood (two
          -- coordinators, 90% flood: t0 66% of the work instead of 25%). Until 2026-12-01 the
          -- last pass then left ALL its slots idle: W6 ran at 0.73× oldest-first with Jain 1.0;
          -- now it leaves as many as those keys are short of their share (v_hold) and fills
          -- the rest. A key whose rows are all due later, set aside, on a saturated key or in
          -- an unowned partition holds nothing back. One probe per (such key, partition of
          -- another owner).
          IF v_lvl IS NOT NULL THEN
            SELECT coalesce(sum(ceil(v_lvl * s.w - s.n))::integer, 0) INTO v_hold FROM (
              SELECT fk.gk, u.n, coalesce((v_fw ->> substr(fk.gk, strpos(fk.gk, '=') + 1))::numeric, 1) AS w
              FROM unnest(v_fkeys) AS fk(gk)
              CROSS JOIN LATERAL (SELECT coalesce(sum(r.n), 0) AS n FROM unnest(v_run_keys, v_run_n) AS r(gk, n) WHERE r.gk = fk.gk) u
              WHERE EXISTS (
                SELECT 1 FROM partition_owners o
                LEFT JOIN partition_stats ps ON ps.task = o.task AND ps.partition = o.partition
                CROSS JOIN LATERAL (
                  SELECT 1 FROM (
                    SELECT e.group_keys FROM executions e
                    WHERE e.task = p_task AND e.partition = o.partition AND e.fair_key = fk.gk
                      AND e.state = 'queued' AND e.waiting_on IS NULL
                      AND e.run_at <= now() AND e.claim_at <= (now() AT TIME ZONE 'UTC')
                      AND e.claim_at >= coalesce(least(ps.claim_floor, (v_low ->> o.partition::text)::timestamp), '-infinity')
                    ORDER BY e.claim_at, e.id
                    LIMIT 64
                  ) h WHERE NOT (v_sat_obj ?| h.group_keys) LIMIT 1
                ) x
                WHERE o.task = p_task AND o.owner IS NOT NULL AND o.owner <> p_coordinator)
            ) s WHERE s.n / s.w < v_lvl;
            IF v_hold >= v_free - cardinality(v_prev) THEN
              v_ids := NULL;
              EXIT;
            END IF;
          END IF;
          v_fair1 := false;
          v_skip_obj := v_sat_obj;
        END IF;
        CONTINUE;
      ELSE
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
      -- ... unless the rows the ranking turned down were turned down by keys this round
      -- filled (more of their rows in the window than they had room for: v_full): then
      -- the rows behind them are unread, though they may be claimable now. Keep this
      -- round's rows (they count as running for the next round's ranking, as a fair
      -- pass's do), skip those keys, and look once more (rounds ≤ 3) — only when at most 8
      -- keys filled it, and reading at most 4 × window + 64 rows per partition: unbounded,
      -- W2 skew re-read thousands of the flood's rows behind every short round (659 vs 1,992
      -- jobs/s, docs/benchmarks.md, sixteenth session). Without it a task
      -- whose oldest rows all wait on one key left slots idle until the next finish or
      -- poll: a row held by its user key (limit 1) started 16–26 ms after its user's
      -- finish at p90–p99, one held by its tenant 5–6 ms (the what-if calibration's
      -- workload, 2026-12-02). fifo tasks without rate limits only: the fair and rate
      -- passes keep their own accounts.
      IF v_fg IS NULL AND NOT v_grate AND v_task_spec IS NULL AND v_full IS NOT NULL AND v_ids IS NOT NULL AND v_pass < 3
         AND cardinality(v_ids) < v_free - cardinality(v_prev) - v_hold AND v_cands >= v_window AND v_skipped < v_window
         AND (SELECT count(*) FROM jsonb_object_keys(v_full)) <= 8 THEN
        SELECT r.keys, r.n INTO v_run_keys, v_run_n FROM sluice_run_keys_plus(v_run_keys, v_run_n, v_ids) r;
        v_prev := v_prev || v_ids;
        v_ids := NULL;
        v_skip_obj := v_skip_obj || v_full;
        v_again := true;
        v_read := least(v_read, v_window * 4 + 64);
        CONTINUE;
      END IF;
      -- A round that looked again ends the claim here, short or not: setting aside what it
      -- skipped is left to the claims whose first round finds the head clogged (setting
      -- aside on short rounds cost W2 more than it saved, above).
      EXIT WHEN v_again;
      EXIT WHEN coalesce(cardinality(v_ids), 0) >= v_free - cardinality(v_prev) - v_hold OR (v_cands >= v_window AND v_skipped < v_window)
             OR (cardinality(v_sat) = 0 AND v_rheld_obj = '{}') OR v_pass >= 3;
      v_aside := v_sat;
      END IF;
      WITH head AS (
        SELECT y.tid, y.group_keys
        FROM unnest(v_owned, v_floor, v_floor_id) AS p(part, fl, fid)
        CROSS JOIN LATERAL (
          SELECT e.ctid AS tid, e.group_keys FROM executions e
          WHERE e.task = p_task AND e.partition = p.part AND e.state = 'queued' AND e.waiting_on IS NULL
            AND e.id <> ALL (v_prev)  -- (fair share: rows earlier passes kept are claimed below)
            AND e.run_at <= now() AND e.claim_at <= (now() AT TIME ZONE 'UTC') AND (e.claim_at, e.id) >= (p.fl, p.fid)
          ORDER BY e.claim_at, e.id
          LIMIT 512
        ) y
      ),
      aside AS (
        UPDATE executions e
        -- a key of v_aside first: a saturated key (a finish releases it), or in a clogged
        -- fair pass a key at its fair share (the claim releases it); else the rate-held key
        -- it is parked on ('rate:' + key; released by a claim once the key's next slot is due)
        SET waiting_on = coalesce((SELECT k FROM unnest(e.group_keys) AS k WHERE k = ANY (v_aside) LIMIT 1),
                                  'rate:' || (SELECT k FROM unnest(e.group_keys) AS k WHERE v_rheld_obj ? k LIMIT 1))
        -- by ctid (one TID scan): nobody else changes a queued row of this task while we
        -- hold the task lock, so the rows read above are still the current versions
        WHERE e.ctid = ANY (ARRAY(SELECT h.tid FROM head h WHERE h.group_keys && v_aside OR v_rheld_obj ?| h.group_keys)) AND e.state = 'queued'
        RETURNING e.waiting_on
      )
      SELECT count(*), array_agg(DISTINCT substr(a.waiting_on, 6)) FILTER (WHERE a.waiting_on LIKE 'rate:%')
      INTO v_set, v_parked FROM aside a;
      -- Rate limits (issue #19): each key whose rows were parked is released at its next
      -- slot (rate_state rows are written only by claims of their task, under its lock, and
      -- deleted by slot GC with SKIP LOCKED, so taking them here cannot close a lock cycle)
      IF v_parked IS NOT NULL THEN
        UPDATE rate_state rs
        SET parked_until = sluice_rate_due(sluice_key_rate(v_rt.groups, rs.group_name, rs.group_key), rs.tat_ms)
        FROM unnest(v_parked) AS k(gk)
        WHERE rs.task = p_task AND rs.group_name = split_part(k.gk, '=', 1) AND rs.group_key = substr(k.gk, strpos(k.gk, '=') + 1);
      END IF;
      CONTINUE WHEN v_fair1;  -- a fair pass looks again (≤ 3 fair passes)
      -- Claim what this round found; look again only when it found nothing and the head
      -- moved.
      EXIT WHEN v_ids IS NOT NULL OR v_set = 0;
    END LOOP;
    -- fair share: the fair passes' rows, then the last pass's
    IF cardinality(v_prev) > 0 THEN
      v_ids := v_prev || coalesce(v_ids, '{}');
    END IF;
  END IF;
  IF v_ids IS NULL THEN RETURN; END IF;

  -- Rate limits (issue #19): with costs, the task's own allowance cuts the candidates
  -- (claim order; costs are ≥ 0, so what is kept is a prefix).
  IF v_task_spec IS NOT NULL AND v_cost IS NOT NULL THEN
    SELECT array_agg(z.id ORDER BY z.ord) INTO v_ids FROM (
      SELECT c.id, c.ord, sum(w.cost) OVER (ORDER BY c.ord) - w.cost AS tcb
      FROM unnest(v_ids) WITH ORDINALITY AS c(id, ord)
      CROSS JOIN LATERAL (SELECT sluice_rate_cost(e.payload, v_cost) AS cost FROM executions e WHERE e.id = c.id) w
    ) z WHERE z.tcb <= v_task_rb;
    IF v_ids IS NULL THEN RETURN; END IF;
  END IF;

  -- The claimed rows' group_slots counters are not written here: the claim logs its moves
  -- (slot_deltas, below) and sluice_fold_slots adds them in outside the task lock
  -- (2026-12-02; until then the claim — or, after a finish, sluice_cycle for both batches —
  -- upserted ~860 slot rows per 100-job W7 cycle under the lock: 4.5 of its 13.6 ms,
  -- docs/benchmarks.md, fourteenth session). Nothing here reads group_slots.in_flight: keys
  -- in use come from the running rows. Nothing here can wait on a producer: sluice_cycle locked the
  -- task_runtime row and the partition_stats rows of `parts` (≥ every partition claimed
  -- from) before the finish, and the queued rows of the task change only under the
  -- task_runtime lock.

  WITH upd AS (
    UPDATE executions e
    -- Rate limits (issue #19): a rate-limited task's rows start at the instant the rates
    -- were read (v_now_ms), so started_at is the clock the limits were kept on
    SET state = 'running', attempts = e.attempts + 1, started_at = coalesce(to_timestamp(v_now_ms / 1000), clock_timestamp()),
        lease_owner = p_coordinator, lease_token = v_token,
        lease_expires_at = now() + make_interval(secs => p_lease_ms / 1000.0)
    -- By primary key only. `IS NOT DISTINCT FROM` (state is NOT NULL, so the same test
    -- as `=`) keeps the planner from proving the claim index's predicate: under the
    -- session's generic plan it otherwise picked executions_claim_idx on task (rows=1
    -- estimated) and filtered the task's WHOLE backlog by id = ANY.
    WHERE e.id = ANY (v_ids) AND e.state IS NOT DISTINCT FROM 'queued' AND e.task = p_task
    RETURNING e.id, e.partition, e.group_keys, e.started_at,
      CASE WHEN v_cost IS NULL THEN 1::double precision ELSE sluice_rate_cost(e.payload, v_cost) END AS cost
  )
  SELECT array_agg(u.id), array_agg(u.partition),
         (SELECT coalesce(array_agg(k.gk), '{}') FROM upd u2 CROSS JOIN LATERAL unnest(u2.group_keys) k(gk)),
         array_agg(u.cost), min(u.started_at)
  INTO v_got, v_parts, v_gks, v_costs, v_started FROM upd u;
  IF v_got IS NULL THEN RETURN; END IF;

  -- The running floor follows the running rows: for a grouped task, whose running rows with
  -- a key were all read above under this lock, up to the earliest start among them; and down
  -- to the rows started here (they start now, so this only matters if the clock was set
  -- back). Its readers read keys only: a running row without any key may start before it
  -- (keys are fixed at enqueue).
  -- The claim floors of the partitions claimed from rise (below); their claim_floor_low
  -- entries, lowered by releases under the task lock this claim holds (in v_floor since),
  -- are dropped with the raise.
  UPDATE task_counters t SET in_flight = greatest(t.in_flight - p_finished, 0) + cardinality(v_got),
    running_floor = least(CASE WHEN v_rt.groups = '{}'::jsonb THEN t.running_floor ELSE coalesce(v_run_min, 'infinity') END, v_started),
    claim_floor_low = CASE WHEN t.claim_floor_low = '{}'::jsonb THEN t.claim_floor_low
                           ELSE t.claim_floor_low - ARRAY(SELECT DISTINCT x::text FROM unnest(v_parts) x) END
  WHERE t.task = p_task;

  -- (a cycle's claim, p_parts given, runs under the lock sluice_cycle took on every partition
  -- it may claim from: not taken again, since under a held snapshot each lock of the row walks
  -- its versions since, as the update below does; 2026-12-07)
  IF p_parts IS NULL THEN
    PERFORM 1 FROM partition_stats ps WHERE ps.task = p_task AND ps.partition = ANY (v_parts)
    ORDER BY ps.partition FOR NO KEY UPDATE;
  END IF;
  -- The claim floor rises to the partition's first claimable row, its (claim_at, id)
  -- ('infinity': none), read in
  -- this statement's snapshot, taken after the partition_stats row lock (the line above, or
  -- sluice_cycle's before the finish): a producer that made a row claimable here either
  -- committed before the lock (read here) or lowers the floor after this commits (least on
  -- top of it); releases under the task lock are in v_floor (this claim's floors, from
  -- partition_stats and claim_floor_low when last read, the lower of the two pairs is where
  -- the probe starts). The probe walks the entries of
  -- the rows claimed since the last raise, not those of every row claimed since a held
  -- snapshot (migration 20261203000100000_claim_floor).
  -- A cycle's finish's moves (v_fin) of a partition claimed from are written here with the
  -- claim's, as the finish would have (in_flight − its rows, floored at 0, depth + its
  -- requeued rows) before the claim's; its floor's lowering is in v_floor already.
  UPDATE partition_stats ps SET depth = ps.depth - d.n + d.fr, in_flight = greatest(ps.in_flight - d.fn, 0) + d.n, updated_at = now(),
    (claim_floor, claim_floor_id) = (
      SELECT coalesce(max(x.claim_at), 'infinity'), coalesce(max(x.id), 0) FROM (
        SELECT f.claim_at, f.id FROM executions f
        WHERE f.task = p_task AND f.partition = ps.partition AND f.state = 'queued' AND f.waiting_on IS NULL
          AND (f.claim_at, f.id) >= (CASE WHEN (ps.claim_floor, ps.claim_floor_id) < (d.fl, d.fid) THEN ps.claim_floor ELSE d.fl END,
                                     CASE WHEN (ps.claim_floor, ps.claim_floor_id) < (d.fl, d.fid) THEN ps.claim_floor_id ELSE d.fid END)
        ORDER BY f.claim_at, f.id LIMIT 1) x)
  FROM (SELECT c.part, c.n, o.fl, o.fid, coalesce(m.n, 0) AS fn, coalesce(m.r, 0) AS fr
        FROM (SELECT p AS part, count(*) AS n FROM unnest(v_parts) p GROUP BY p) c
        JOIN unnest(v_owned, v_floor, v_floor_id) AS o(part, fl, fid) ON o.part = c.part
        LEFT JOIN jsonb_to_recordset(v_fin) AS m(p integer, n integer, r integer) ON m.p = c.part) d
  WHERE ps.task = p_task AND ps.partition = d.part;
  -- the finish's moves of the partitions not claimed from, as the finish writes them
  IF v_fin IS NOT NULL THEN
    v_fin := (SELECT jsonb_agg(m.x) FROM jsonb_array_elements(v_fin) AS m(x) WHERE (m.x ->> 'p')::integer <> ALL (v_parts));
    IF v_fin IS NOT NULL THEN PERFORM sluice_finish_partitions(p_task, v_fin); END IF;
    PERFORM set_config('sluice.finish_moves', '', true);
  END IF;

  -- Every key of a claimed row: +1 in flight, −1 queued (folded by sluice_fold_slots).
  IF cardinality(v_gks) > 0 THEN
    INSERT INTO slot_deltas (task, keys, d_in_flight, d_queued) VALUES (p_task, v_gks, 1, -1);
  END IF;

  -- Rate limits (issue #19): each scope's TAT moves by the cost it started,
  -- TAT ← max(TAT, t) + cost × T (excluded.tat_ms − t is cost × T). Sorted, after
  -- partition_stats: the lock order's last kind of row. Slot GC deletes rows only with SKIP
  -- LOCKED, so it never waits on a claim (nor a claim long on it).
  IF v_grate OR v_task_spec IS NOT NULL THEN
    INSERT INTO rate_state AS rs (task, group_name, group_key, tat_ms, updated_at)
    SELECT p_task, s.gname, s.gkey, v_now_ms + s.cost * s.t, now()
    FROM (
      SELECT ''::text AS gname, ''::text AS gkey, sum(c.cost) AS cost,
             (v_task_spec ->> 'per')::double precision / (v_task_spec ->> 'limit')::double precision AS t
      FROM unnest(v_costs) AS c(cost)
      HAVING v_task_spec IS NOT NULL
      UNION ALL
      SELECT q.gname, q.gkey, sum(q.cost), min((q.r ->> 'per')::double precision / (q.r ->> 'limit')::double precision)
      FROM (
        SELECT split_part(k.gk, '=', 1) AS gname, substr(k.gk, strpos(k.gk, '=') + 1) AS gkey, g.cost,
               sluice_key_rate(v_rt.groups, split_part(k.gk, '=', 1), substr(k.gk, strpos(k.gk, '=') + 1)) AS r
        FROM unnest(v_got, v_costs) AS g(id, cost)
        JOIN executions e ON e.id = g.id
        CROSS JOIN LATERAL unnest(e.group_keys) AS k(gk)
        WHERE v_grate
      ) q
      WHERE q.r IS NOT NULL
      GROUP BY q.gname, q.gkey
    ) s
    ORDER BY 2, 3
    ON CONFLICT (task, group_name, group_key) DO UPDATE
      SET tat_ms = greatest(rs.tat_ms, v_now_ms) + (excluded.tat_ms - v_now_ms), updated_at = now(),
          -- a parked key's next release: its next slot after this claim
          parked_until = CASE WHEN rs.parked_until IS NOT NULL AND rs.group_name <> '' THEN
            sluice_rate_due(sluice_key_rate(v_rt.groups, rs.group_name, rs.group_key), greatest(rs.tat_ms, v_now_ms) + (excluded.tat_ms - v_now_ms)) END;
  END IF;

  RETURN QUERY
  SELECT e.id, e.task, e.partition, e.attempts, e.payload, e.groups, e.stream_key, e.idempotency_key,
         e.lease_token, e.enqueued_at, e.run_at
  FROM executions e WHERE e.id = ANY (v_got)
  ORDER BY e.claim_at, e.id;
END
$function$;
