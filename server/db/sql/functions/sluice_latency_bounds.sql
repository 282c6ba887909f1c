-- sluice_latency_bounds(): the latency histogram's bucket upper bounds in ms,
-- Prometheus style; bucket 17 is +Inf. The bounds' single statement in SQL: the
-- metrics sampler mirrors them in TypeScript (server/db/write-metric-samples.ts) to
-- turn lat_hist deltas into p50/p99, and sluice_latency_bucket spells them out
-- (negated, reversed) so it stays one inlinable expression: change all three together.
-- Unchanged since prisma/migrations/20261123000200000_engine.

CREATE OR REPLACE FUNCTION public.sluice_latency_bounds()
 RETURNS double precision[]
 LANGUAGE sql
 IMMUTABLE
AS $function$
  SELECT ARRAY[1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000, 60000, 300000]::double precision[]
$function$;
