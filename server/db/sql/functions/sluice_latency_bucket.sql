-- sluice_latency_bucket(ms): the 1-based latency bucket of a duration in ms: the first
-- bound b (sluice_latency_bounds) with ms <= b; 17 = above the last bound, and for NULL.
-- width_bucket counts the thresholds <= its operand, so on the negated, reversed bounds
-- it counts the bounds >= ms; 17 minus that is the bucket. The bounds are written out
-- (they must stay equal to sluice_latency_bounds()).
--
-- One plain expression, so the planner inlines it into sluice_finish's statement. The
-- first version ran a subquery over generate_subscripts per finished row: ~30% of
-- sluice_finish's time (docs/benchmarks.md, engine performance pass 1).
-- History before this file: prisma/migrations 20261123000200000_engine (first),
-- …0500000_engine_perf (this definition).

CREATE OR REPLACE FUNCTION public.sluice_latency_bucket(ms double precision)
 RETURNS integer
 LANGUAGE sql
 IMMUTABLE
AS $function$
  SELECT coalesce(17 - width_bucket(-ms, ARRAY[-300000, -60000, -30000, -10000, -5000, -2500, -1000, -500, -250, -100, -50, -25, -10, -5, -2, -1]::double precision[]), 17)
$function$;
