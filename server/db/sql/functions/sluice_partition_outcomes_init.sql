-- sluice_partition_outcomes_init(): AFTER INSERT trigger on partition_stats
-- (partition_outcomes_init): creates the partition's partition_outcomes row (totals 0, an
-- empty 17-bucket latency histogram) with its partition_stats row, whichever release's apply
-- or repartition inserts it. The trigger is schema (prisma/migrations/
-- 20261207000200000_partition_outcomes, which says why the finish-only counters have a row
-- of their own); only the function lives here.

CREATE OR REPLACE FUNCTION public.sluice_partition_outcomes_init()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  INSERT INTO partition_outcomes (task, partition, lat_hist) VALUES (NEW.task, NEW.partition, array_fill(0::bigint, ARRAY[17]))
  ON CONFLICT (task, partition) DO NOTHING;
  RETURN NULL;
END
$function$;
