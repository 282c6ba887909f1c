-- sluice_rate_allowance(spec, tat_ms, now_ms): how much cost a rate-limited scope may still
-- start at now_ms (GCRA; server/core/rate-limit.ts rateAllowance is the same rule and its
-- tables): burst − (max(TAT, now) − now) / T with T = per / limit. An execution whose scope
-- already admitted `before` in the same claim is admitted iff before ≤ allowance; negative
-- = the scope is held. spec is {"limit", "per", "burst"} (sluice_key_rate, or
-- task_runtime.rate -> 'task'); NULL spec → NULL (no rate). tat_ms NULL = no state row =
-- idle. IMMUTABLE LANGUAGE sql, so it is inlined. Issue #19 (rate limits), 2026-11-24.

CREATE OR REPLACE FUNCTION public.sluice_rate_allowance(spec jsonb, tat_ms double precision, now_ms double precision)
 RETURNS double precision
 LANGUAGE sql
 IMMUTABLE
AS $function$
  SELECT (spec ->> 'burst')::double precision
         - (greatest(coalesce(tat_ms, now_ms), now_ms) - now_ms) / ((spec ->> 'per')::double precision / (spec ->> 'limit')::double precision)
$function$;
