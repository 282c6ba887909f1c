-- sluice_finish(task, ids, tokens, outcomes, run_at, errors, stacks, fingerprints,
-- only_expired, stale_ms): finish a batch of running executions of one task and return
-- (id, outcome) for each one finished; a fenced item (lease lost) is absent. The body is
-- sluice_finish_rows (server/db/sql/functions/sluice_finish_rows.sql, whose header says
-- what a finish does, in which lock order, and what was measured) with defer_slots
-- false. Split 2026-11-24 so that sluice_cycle can move a finish's and a claim's
-- group_slots counters in one upsert (docs/benchmarks.md, "One slot upsert per cycle");
-- the signature and the reply are unchanged for the completer and the lease rescuer.
-- plpgsql rather than an inlinable sql function: a set-returning call of a plpgsql
-- function is not inlined either way, and this keeps the caller-facing definition short.

CREATE OR REPLACE FUNCTION public.sluice_finish(p_task text, p_ids bigint[], p_tokens uuid[], p_outcomes text[], p_run_at timestamp with time zone[], p_errors text[], p_stacks text[], p_fingerprints text[], p_only_expired boolean DEFAULT false, p_stale_ms integer DEFAULT 0)
 RETURNS TABLE(id bigint, outcome text)
 LANGUAGE plpgsql
AS $function$
BEGIN
  RETURN QUERY
  SELECT f.id, f.outcome
  FROM sluice_finish_rows(p_task, p_ids, p_tokens, p_outcomes, p_run_at, p_errors, p_stacks, p_fingerprints, p_only_expired, p_stale_ms, false) f;
END
$function$;
