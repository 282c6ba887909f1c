-- sluice_rate_cost(payload, path): an execution's cost for the rate limits of its task,
-- the payload's number at `path` (task_runtime.rate -> 'cost', the task's rateCostPath split
-- on dots): a number ≥ 0, capped at 1,000,000; anything else (absent, a string, negative)
-- counts 1. Read through numeric so no jsonb number can overflow the cast. The same rule as
-- rateCost in server/core/rate-limit.ts. Issue #19 (rate limits), 2026-11-24.

CREATE OR REPLACE FUNCTION public.sluice_rate_cost(payload jsonb, path text[])
 RETURNS double precision
 LANGUAGE sql
 IMMUTABLE
AS $function$
  SELECT CASE WHEN jsonb_typeof(payload #> path) = 'number' AND (payload #>> path)::numeric >= 0
              THEN least((payload #>> path)::numeric, 1000000)::double precision
              ELSE 1 END
$function$;
