-- "Why is this waiting?": the constraint that keeps one execution from being claimed right
-- now, as JSON, for the execution detail (tRPC, REST `waitingOn`, the CLI).
--
-- It asks the questions sluice_claim / sluice_cycle ask, with their definitions:
--  * the task: task_runtime.active and .paused (the claim returns before anything else);
--  * the stream: a blocked row waits for its stream's head, the lowest id among the
--    stream's rows in ('blocked', 'queued', 'running') — the row sluice_finish promotes
--    (executions_stream_idx, one probe);
--  * run_at > now(): the claim only reads rows with run_at <= now() (a delay, or a
--    retry's backoff when attempts > 0);
--  * the partition's owner: the claim reads only partitions its coordinator owns; an owner
--    that stopped, drains or missed heartbeats for p_stale_ms holds nothing (the same test
--    partition ownership takes partitions over with, server/db/partition-ownership.ts);
--  * group keys: a key's in-flight count is the number of the task's running rows carrying
--    it (the claim's own count, executions_running_idx, at most `concurrency` rows) and its
--    limit is sluice_group_limit (override first) — the key is full when count ≥ limit;
--  * rate limits (issue #19): a group key, or the task, whose GCRA allowance
--    (sluice_rate_allowance over rate_state's TAT and sluice_key_rate / task_runtime.rate)
--    is negative is rate-held — the claim skips the key's rows (or claims nothing of the
--    task) until its next slot, TAT − burst × T, which is reported as `nextInMs`;
--  * the task limit: task_counters.in_flight ≥ concurrency; with `order: fair` (issue #19)
--    and the row's key at or over its weighted share, `fair_share` before it;
--  * the task's circuit breaker (issue 23): coordinators do not claim a task whose breaker
--    (task_breakers) is open, or half-open with every probe started, while the definition
--    has it enabled (server/coordinator/breaker-gate.ts; the gate is in the coordinator,
--    not in the claim, so this reads the same row it reads). Listed after the pause.
-- The first of these that holds is `reason`; every one that holds is in `holds` (a row
-- behind a full key of a full task waits on both). None: `claimable` (the next claim of
-- the partition's owner takes it, in claim order: `ahead` = claimable rows of the partition
-- before it in (claim_at, id) order, counted up to 1,000 through executions_claim_idx, and
-- `aheadHigherPriority` = how many of them have a higher priority than it; `priority`).
-- A spilled execution (overflow) waits for its partition's depth to fall below maxDepth.
-- Reads only: primary-key and partial-index probes, no scan of executions.
-- Shared with the claim: sluice_group_limit (the limit, override first) and the same
-- predicates over the same indexes; kept out of sluice_claim itself (the claim reads a
-- whole window per round, this reads one row), and pinned to it by the tests named above.

CREATE OR REPLACE FUNCTION public.sluice_why_waiting(p_id bigint, p_stale_ms integer DEFAULT 10000)
 RETURNS jsonb
 LANGUAGE plpgsql
 STABLE
AS $function$
DECLARE
  e        record;
  o        record;
  rt       record;
  v_ps     record;
  v_head   record;
  v_own    record;
  v_k      record;
  v_holds  jsonb := '[]'::jsonb;
  v_ahead  integer;
  v_ahead_prio integer;
  v_brk    record;
  v_fg     text;     -- fair share (issue #19): the task's fair group, the row's key in it
  v_fk     text;
  v_fair   record;
  v_now_ms double precision := extract(epoch FROM clock_timestamp()) * 1000;
  v_rs     record;
BEGIN
  SELECT x.id, x.task, x.partition, x.state, x.stream_key, x.group_keys, x.attempts, x.run_at, x.waiting_on, x.priority, x.claim_at
    INTO e FROM executions x WHERE x.id = p_id;
  IF NOT FOUND THEN
    SELECT x.id, x.task, x.partition INTO o FROM overflow x WHERE x.id = p_id;
    IF NOT FOUND THEN RETURN NULL; END IF;
    SELECT ps.depth, ps.spilled INTO v_ps FROM partition_stats ps WHERE ps.task = o.task AND ps.partition = o.partition;
    RETURN jsonb_build_object(
      'reason', 'spilled',
      'holds', jsonb_build_array(jsonb_build_object(
        'reason', 'spilled',
        'partition', o.partition,
        'depth', coalesce(v_ps.depth, 0),
        'maxDepth', (SELECT (t.definition -> 'backpressure' ->> 'maxDepth')::bigint FROM task_runtime t WHERE t.task = o.task),
        'spilledAhead', (SELECT count(*) FROM (SELECT 1 FROM overflow y WHERE y.task = o.task AND y.partition = o.partition AND y.id < o.id
                                                ORDER BY y.id LIMIT 10001) z))));
  END IF;
  IF e.state NOT IN ('queued', 'blocked') THEN
    RETURN jsonb_build_object('reason', 'not_waiting', 'state', e.state, 'holds', '[]'::jsonb);
  END IF;

  SELECT t.concurrency, coalesce(c.in_flight, 0) AS in_flight, t.paused, t.active, t.groups, t.rate INTO rt
  FROM task_runtime t LEFT JOIN task_counters c ON c.task = t.task WHERE t.task = e.task;
  IF NOT FOUND OR NOT rt.active THEN
    v_holds := v_holds || jsonb_build_object('reason', 'task_inactive', 'task', e.task);
  ELSIF rt.paused THEN
    v_holds := v_holds || jsonb_build_object('reason', 'task_paused', 'task', e.task);
  END IF;

  SELECT b.state, b.since, b.reason, b.opened_at, b.probes_started,
         (t.definition -> 'circuitBreaker' ->> 'coolDownMs')::bigint AS cool_down_ms,
         (t.definition -> 'circuitBreaker' ->> 'probes')::int AS probes
    INTO v_brk
    FROM task_breakers b JOIN task_runtime t ON t.task = b.task
   WHERE b.task = e.task AND b.state <> 'closed'
     AND coalesce((t.definition -> 'circuitBreaker' ->> 'enabled')::boolean, false);
  IF FOUND AND (v_brk.state = 'open' OR v_brk.probes_started >= coalesce(v_brk.probes, 1)) THEN
    v_holds := v_holds || jsonb_build_object(
      'reason', 'circuit_open', 'task', e.task, 'state', v_brk.state, 'since', v_brk.since,
      'openedAt', v_brk.opened_at, 'why', v_brk.reason,
      'probesAt', CASE WHEN v_brk.state = 'open' THEN v_brk.opened_at + make_interval(secs => coalesce(v_brk.cool_down_ms, 0) / 1000.0) END);
  END IF;

  IF e.state = 'blocked' THEN
    SELECT h.id, h.state, h.attempts, h.run_at, h.lease_expires_at, h.last_error INTO v_head
    FROM executions h
    WHERE h.task = e.task AND h.stream_key = e.stream_key AND h.state IN ('blocked', 'queued', 'running')
    ORDER BY h.id LIMIT 1;
    v_holds := v_holds || jsonb_build_object(
      'reason', 'stream_head', 'stream', e.stream_key,
      'headId', v_head.id, 'headState', v_head.state, 'headAttempts', v_head.attempts,
      'headRetryAt', CASE WHEN v_head.state = 'queued' AND v_head.run_at > now() THEN v_head.run_at END,
      'headLeaseExpiresAt', CASE WHEN v_head.state = 'running' THEN v_head.lease_expires_at END,
      'headLastError', left(v_head.last_error, 300));
  ELSIF e.run_at > now() THEN
    v_holds := v_holds || jsonb_build_object(
      'reason', 'scheduled', 'until', e.run_at, 'kind', CASE WHEN e.attempts > 0 THEN 'retry_backoff' ELSE 'delay' END,
      'attempts', e.attempts);
  END IF;

  SELECT po.owner, c.name, c.last_heartbeat_at, c.stopped_at, c.draining,
         (c.id IS NOT NULL AND c.stopped_at IS NULL AND NOT c.draining
          -- the owner's own stale threshold (server/db/coordinator-liveness.ts), p_stale_ms for older rows
          AND c.last_heartbeat_at >= now() - make_interval(secs => coalesce(c.stale_ms, p_stale_ms) / 1000.0)) AS live
    INTO v_own
  FROM partition_owners po LEFT JOIN coordinators c ON c.id = po.owner
  WHERE po.task = e.task AND po.partition = e.partition;
  IF NOT coalesce(v_own.live, false) THEN
    v_holds := v_holds || jsonb_build_object(
      'reason', 'no_owner', 'partition', e.partition, 'owner', v_own.owner, 'ownerName', v_own.name,
      'lastHeartbeatAt', v_own.last_heartbeat_at, 'ownerStopped', v_own.stopped_at IS NOT NULL, 'ownerDraining', coalesce(v_own.draining, false));
  END IF;

  IF rt.groups IS NOT NULL AND cardinality(e.group_keys) > 0 THEN
    FOR v_k IN
      SELECT gk.k, split_part(gk.k, '=', 1) AS gname, substr(gk.k, strpos(gk.k, '=') + 1) AS gkey,
             sluice_group_limit(rt.groups, split_part(gk.k, '=', 1), substr(gk.k, strpos(gk.k, '=') + 1)) AS lim,
             (rt.groups -> split_part(gk.k, '=', 1) -> 'overrides') ? substr(gk.k, strpos(gk.k, '=') + 1) AS override,
             (SELECT count(*) FROM executions r WHERE r.task = e.task AND r.state = 'running' AND gk.k = ANY (r.group_keys))::integer AS used,
             sluice_key_rate(rt.groups, split_part(gk.k, '=', 1), substr(gk.k, strpos(gk.k, '=') + 1)) AS rate,
             (rt.groups -> split_part(gk.k, '=', 1) -> 'rate' -> 'overrides') ? substr(gk.k, strpos(gk.k, '=') + 1) AS rate_override,
             (SELECT s.tat_ms FROM rate_state s WHERE s.task = e.task AND s.group_name = split_part(gk.k, '=', 1)
                AND s.group_key = substr(gk.k, strpos(gk.k, '=') + 1)) AS tat_ms
      FROM unnest(e.group_keys) WITH ORDINALITY AS gk(k, i)
      ORDER BY gk.i
    LOOP
      IF v_k.lim IS NOT NULL AND v_k.used >= v_k.lim THEN
        v_holds := v_holds || jsonb_build_object(
          'reason', 'group_full', 'key', v_k.k, 'group', v_k.gname, 'groupKey', v_k.gkey,
          'inFlight', v_k.used, 'limit', v_k.lim, 'override', coalesce(v_k.override, false));
      END IF;
      -- Rate limits (issue #19)
      IF v_k.rate IS NOT NULL AND sluice_rate_allowance(v_k.rate, v_k.tat_ms, v_now_ms) < 0 THEN
        v_holds := v_holds || jsonb_build_object(
          'reason', 'rate_limited', 'key', v_k.k, 'group', v_k.gname, 'groupKey', v_k.gkey,
          'limit', (v_k.rate ->> 'limit')::integer, 'per', (v_k.rate ->> 'per')::integer, 'burst', (v_k.rate ->> 'burst')::integer,
          'override', coalesce(v_k.rate_override, false),
          'nextInMs', v_k.tat_ms - v_now_ms - (v_k.rate ->> 'burst')::double precision * (v_k.rate ->> 'per')::double precision / (v_k.rate ->> 'limit')::double precision);
      END IF;
    END LOOP;
  END IF;

  -- Fair share (issue #19, server/core/fair-share.ts): while the task is full, a row whose
  -- key of the fair group runs at or above its share (L × weight, L = the capacity the
  -- waiting keys share ÷ their weights) is passed over for keys below theirs. Running
  -- counts from the task's running rows, as the claim counts them (group_slots.in_flight
  -- lags by the moves not yet folded, slot_deltas); waiting keys from group_slots.queued,
  -- as the claim's fair pass reads them. Reported only with task_full, so the claim takes
  -- nothing of the row while it holds.
  IF rt.concurrency IS NOT NULL AND rt.in_flight >= rt.concurrency THEN
    SELECT g.key INTO v_fg FROM jsonb_each(rt.groups) g WHERE g.value ? 'fair' LIMIT 1;
    SELECT k INTO v_fk FROM unnest(e.group_keys) AS k WHERE split_part(k, '=', 1) = v_fg LIMIT 1;
    IF v_fk IS NOT NULL THEN
      -- a rate-held key (its allowance negative, as the claim reads it) waits on its rate,
      -- not for a share: it takes none (the claim's fair passes skip it), so it is left out
      -- of the waiting keys and its own row gets no fair_share hold
      WITH run AS (
        SELECT substr(k.gk, strpos(k.gk, '=') + 1) AS gkey, count(*)::integer AS n
        FROM executions r CROSS JOIN LATERAL unnest(r.group_keys) AS k(gk)
        WHERE r.task = e.task AND r.state = 'running' AND split_part(k.gk, '=', 1) = v_fg
          AND r.started_at >= (SELECT t.running_floor FROM task_counters t WHERE t.task = e.task)
        GROUP BY 1
      ), gs AS (
        SELECT coalesce(s.group_key, run.gkey) AS group_key, coalesce(run.n, 0) AS in_flight, coalesce(s.queued, 0) AS queued
        FROM (SELECT g.group_key, g.queued FROM group_slots g WHERE g.task = e.task AND g.group_name = v_fg) s
        FULL JOIN run ON run.gkey = s.group_key
      )
      SELECT coalesce(max(gs.in_flight) FILTER (WHERE gs.group_key = substr(v_fk, strpos(v_fk, '=') + 1)), 0) AS used,
             bool_or(q.held) FILTER (WHERE gs.group_key = substr(v_fk, strpos(v_fk, '=') + 1)) AS held,
             coalesce((rt.groups -> v_fg -> 'weights' ->> substr(v_fk, strpos(v_fk, '=') + 1))::numeric, 1) AS w,
             (rt.concurrency - coalesce(sum(gs.in_flight) FILTER (WHERE NOT q.waits), 0))
               / nullif(sum(coalesce((rt.groups -> v_fg -> 'weights' ->> gs.group_key)::numeric, 1)) FILTER (WHERE q.waits), 0) AS lvl
        INTO v_fair
      FROM gs
      CROSS JOIN LATERAL (
        SELECT coalesce(sluice_rate_allowance(sluice_key_rate(rt.groups, v_fg, gs.group_key),
                 (SELECT s.tat_ms FROM rate_state s WHERE s.task = e.task AND s.group_name = v_fg AND s.group_key = gs.group_key),
                 v_now_ms) < 0, false) AS held
      ) h
      CROSS JOIN LATERAL (SELECT h.held, gs.queued > 0 AND NOT h.held AS waits) q;  -- waits: shares L
      IF v_fair.lvl > 0 AND NOT coalesce(v_fair.held, false) AND v_fair.used / v_fair.w >= v_fair.lvl THEN
        v_holds := v_holds || jsonb_build_object(
          'reason', 'fair_share', 'key', v_fk, 'group', v_fg, 'groupKey', substr(v_fk, strpos(v_fk, '=') + 1),
          'inFlight', v_fair.used, 'weight', v_fair.w, 'share', round(v_fair.lvl * v_fair.w, 2),
          'times', round(v_fair.used / v_fair.w / v_fair.lvl, 2));
      END IF;
    END IF;
  END IF;

  IF rt.concurrency IS NOT NULL AND rt.in_flight >= rt.concurrency THEN
    v_holds := v_holds || jsonb_build_object('reason', 'task_full', 'task', e.task, 'inFlight', rt.in_flight, 'concurrency', rt.concurrency);
  END IF;
  -- Rate limits (issue #19): the task's own rate
  IF rt.rate ? 'task' THEN
    SELECT s.tat_ms INTO v_rs FROM rate_state s WHERE s.task = e.task AND s.group_name = '' AND s.group_key = '';
    IF sluice_rate_allowance(rt.rate -> 'task', v_rs.tat_ms, v_now_ms) < 0 THEN
      v_holds := v_holds || jsonb_build_object(
        'reason', 'task_rate_limited', 'task', e.task,
        'limit', (rt.rate -> 'task' ->> 'limit')::integer, 'per', (rt.rate -> 'task' ->> 'per')::integer, 'burst', (rt.rate -> 'task' ->> 'burst')::integer,
        'nextInMs', v_rs.tat_ms - v_now_ms - (rt.rate -> 'task' ->> 'burst')::double precision * (rt.rate -> 'task' ->> 'per')::double precision / (rt.rate -> 'task' ->> 'limit')::double precision);
    END IF;
  END IF;

  IF jsonb_array_length(v_holds) > 0 THEN
    RETURN jsonb_build_object('reason', v_holds -> 0 ->> 'reason', 'holds', v_holds, 'waitingOn', e.waiting_on);
  END IF;
  -- Claimable: the partition's owner takes it when the rows before it are gone. A row set
  -- aside on a key that has room again (waiting_on) is released by the next finish of the
  -- key or the reconciler's sweep; it is not in the claim index until then.
  -- Ahead = before it in claim order (claim_at, id: priority, then waiting time); of
  -- those, the ones with a higher priority (read in the same ≤ 1,000-row scan).
  SELECT count(*)::integer, count(*) FILTER (WHERE z.priority > e.priority)::integer INTO v_ahead, v_ahead_prio FROM (
    SELECT a.priority FROM executions a
    WHERE a.task = e.task AND a.partition = e.partition AND a.state = 'queued' AND a.waiting_on IS NULL
      AND a.run_at <= now() AND a.claim_at <= (now() AT TIME ZONE 'UTC') AND (a.claim_at, a.id) < (e.claim_at, e.id)
    ORDER BY a.claim_at, a.id LIMIT 1000) z;
  RETURN jsonb_build_object('reason', CASE WHEN e.waiting_on IS NULL THEN 'claimable' ELSE 'set_aside' END,
                            'holds', '[]'::jsonb, 'ahead', v_ahead, 'aheadCapped', v_ahead >= 1000,
                            'priority', e.priority, 'aheadHigherPriority', v_ahead_prio,
                            'partition', e.partition, 'owner', v_own.owner, 'ownerName', v_own.name,
                            'waitingOn', e.waiting_on);
END
$function$;
