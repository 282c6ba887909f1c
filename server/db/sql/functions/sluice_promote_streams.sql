-- sluice_promote_streams(task, streams): for each stream key whose head finished or was
-- canceled, promote the stream's next blocked execution (lowest id) to queued — only when
-- the stream's lowest unfinished execution is blocked, so a stream whose head is still
-- queued or running (e.g. a canceled row in the middle) is left alone. Under each stream's
-- advisory lock, taken in sorted order (hashtextextended(task ␟ key), the key space of
-- enqueue's lockStreams), so a concurrent enqueue cannot slip a row in unseen. The caller
-- holds the task_runtime row lock. Returns how many rows it promoted.
--
-- Shared by sluice_finish (a head that succeeded, died or was canceled by its runner) and
-- server/db/cancel-executions.ts (a waiting head canceled by an operator), so the rule of
-- what releases a stream is written once. The statement is the one sluice_finish had inline
-- (migration 20261123000700000), moved here unchanged by 20261124000300000; generic plans
-- for the engine's reasons (see sluice_claim.sql): the per-stream lookup is a LATERAL …
-- LIMIT 1 probe of executions_stream_idx.
-- enable_seqscan off: plans made while executions was a few pages long must not be
-- seq scans kept for the session (sluice_claim_rows.sql says why and what was measured).
-- jit off: with seq scans off, a plan left with no other path would be JIT-compiled on
-- every call (sluice_claim_rows.sql says why and what was measured).
CREATE OR REPLACE FUNCTION public.sluice_promote_streams(p_task text, p_streams text[])
 RETURNS integer
 LANGUAGE plpgsql
 SET plan_cache_mode TO 'force_generic_plan'
 SET enable_seqscan TO 'off'
 SET jit TO 'off'
AS $function$
DECLARE
  v_key text;
  v_n   integer;
BEGIN
  IF coalesce(cardinality(p_streams), 0) = 0 THEN RETURN 0; END IF;
  FOR v_key IN SELECT DISTINCT s FROM unnest(p_streams) s WHERE s IS NOT NULL ORDER BY s LOOP
    PERFORM pg_advisory_xact_lock(hashtextextended(p_task || chr(31) || v_key, 0));
  END LOOP;
  -- the promoted rows are claimable now, with claim_at = run_at − their priority's lead,
  -- which may be below their partition's claim floor: lowered in the same statement
  -- (sluice_claim_floor_lower; issue #18, 2026-12-03)
  WITH promoted AS (
    UPDATE executions e SET state = 'queued', run_at = greatest(e.run_at, now())
    FROM (SELECT DISTINCT s AS k FROM unnest(p_streams) s WHERE s IS NOT NULL) AS s
    CROSS JOIN LATERAL (
      SELECT b.id FROM executions b
      WHERE b.task = p_task AND b.stream_key = s.k AND b.state IN ('blocked', 'queued', 'running')
      ORDER BY b.id LIMIT 1
    ) nxt
    WHERE e.id = nxt.id AND e.state = 'blocked'
    RETURNING e.partition, e.claim_at
  )
  SELECT (SELECT count(*)::integer FROM promoted) INTO v_n
  FROM (SELECT sluice_claim_floor_lower(p_task, array_agg(p.partition), array_agg(p.claim_at)) FROM promoted p) l;
  RETURN v_n;
END
$function$;
