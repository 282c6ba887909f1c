-- sluice_rate_due(spec, tat_ms): when a rate-limited scope's next execution may start
-- (epoch ms): TAT − burst × T, T = per / limit (GCRA; nextSlotInMs in
-- server/core/rate-limit.ts is this minus now). The claim parks a rate-held key's rows until
-- then (rate_state.parked_until) and why-waiting reports it. NULL spec or tat → NULL.
-- IMMUTABLE LANGUAGE sql, so it is inlined. Issue #19 (rate limits), 2026-11-24.

CREATE OR REPLACE FUNCTION public.sluice_rate_due(spec jsonb, tat_ms double precision)
 RETURNS double precision
 LANGUAGE sql
 IMMUTABLE
AS $function$
  SELECT tat_ms - (spec ->> 'burst')::double precision * (spec ->> 'per')::double precision / (spec ->> 'limit')::double precision
$function$;
