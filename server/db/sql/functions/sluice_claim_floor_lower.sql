-- sluice_claim_floor_lower(task, partitions, claim_ats): rows of the task in these partitions
-- became claimable with these claim_at values (state queued, waiting_on NULL; aligned
-- arrays, several rows per partition allowed), so each partition's claim floor must be at
-- or below the least of them (migration 20261203000100000_claim_floor: the invariant and
-- who keeps it). For the paths that make rows claimable under the task lock in partitions
-- whose partition_stats rows they do not hold and, in the engine's lock order
-- (task_runtime → partition_stats sorted, the enqueue's order without the task lock), may
-- not take now: a release of rows waiting on a key (any partition), a stream's promotion,
-- the claim's own releases, run now, a replay's release. The caller holds the task lock.
-- The lowering goes to task_counters.claim_floor_low (migration 20261207000100000_task_counters), which only task-lock holders write and
-- the claim reads under the same lock. A partition whose partition_stats floor is already
-- at or below the row is left alone, so no write at all in the usual case: that floor can
-- only fall meanwhile (the enqueue lowers it without the task lock; raising it takes the
-- task lock, which the caller holds), so the row stays above it. (At the same claim_at the
-- floor's id could be above the row's: lowered then too, to (claim_at, 0).) Returns the
-- task's claim_floor_low after the lowering, NULL when it lowered nothing: a caller that keeps
-- a copy (sluice_claim_rows) takes it from here instead of reading the row again (under a
-- held snapshot each read walks every version of it since).
-- (issue #18, 2026-12-03)

CREATE OR REPLACE FUNCTION public.sluice_claim_floor_lower(p_task text, p_parts integer[], p_ats timestamp without time zone[])
 RETURNS jsonb
 LANGUAGE plpgsql
 SET plan_cache_mode TO 'force_generic_plan'
 SET enable_seqscan TO 'off'
 SET jit TO 'off'
AS $function$
DECLARE
  v_obj jsonb;
  v_low jsonb;
BEGIN
  IF coalesce(cardinality(p_parts), 0) = 0 THEN RETURN NULL; END IF;
  SELECT jsonb_object_agg(m.part::text, m.at) INTO v_obj
  FROM (SELECT x.part, min(x.at) AS at FROM unnest(p_parts, p_ats) AS x(part, at) WHERE x.part IS NOT NULL AND x.at IS NOT NULL GROUP BY x.part) m
  CROSS JOIN LATERAL (SELECT t.claim_floor_low FROM task_counters t WHERE t.task = p_task) t
  LEFT JOIN partition_stats ps ON ps.task = p_task AND ps.partition = m.part
  WHERE m.at <= coalesce(ps.claim_floor, 'infinity')
    AND m.at < coalesce((t.claim_floor_low ->> m.part::text)::timestamp, 'infinity');
  IF v_obj IS NULL THEN RETURN NULL; END IF;
  UPDATE task_counters t SET claim_floor_low = t.claim_floor_low || v_obj WHERE t.task = p_task
  RETURNING t.claim_floor_low INTO v_low;
  RETURN v_low;
END
$function$;
