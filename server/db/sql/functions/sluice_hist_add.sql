-- sluice_hist_add(hist, buckets): hist plus one count per bucket index in 1..17, as a
-- 17-element array (hist's own elements, missing ones 0). sluice_finish adds each
-- batch's latency buckets (sluice_latency_bucket) to partition_stats.lat_hist with it;
-- the metrics sampler diffs the cumulative histogram for p50/p99 without touching
-- executions. NULL and out-of-range indexes count nowhere (tests pin this).
--
-- plpgsql, not LANGUAGE sql: an SQL function whose body aggregates cannot be inlined,
-- and a non-inlined SQL function is planned again on every execution of the statement
-- that calls it: sluice_finish's partition_stats UPDATE re-planned it on each call,
-- ~0.2 ms per cycle (a third of the whole finish at 32 jobs). plpgsql keeps what it
-- compiled for the session. The body is a loop over the buckets: 17 correlated counts
-- took ~18 µs per partition, the loop a few µs (docs/benchmarks.md pass 4).
-- History before this file: prisma/migrations 20261123000200000_engine (as SQL),
-- …0800000_lean_cycle (this definition).

CREATE OR REPLACE FUNCTION public.sluice_hist_add(hist bigint[], buckets integer[])
 RETURNS bigint[]
 LANGUAGE plpgsql
 IMMUTABLE
AS $function$
DECLARE
  h bigint[] := array_fill(0::bigint, ARRAY[17]);
  b integer;
BEGIN
  FOR i IN 1 .. least(coalesce(cardinality(hist), 0), 17) LOOP
    h[i] := coalesce(hist[i], 0);
  END LOOP;
  FOREACH b IN ARRAY coalesce(buckets, '{}') LOOP
    IF b BETWEEN 1 AND 17 THEN
      h[b] := h[b] + 1;
    END IF;
  END LOOP;
  RETURN h;
END
$function$;
