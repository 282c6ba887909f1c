-- sluice_floor_low_least(a, b): two claim-floor lowerings (jsonb objects, partition →
-- claim_at as task_counters.claim_floor_low holds them) as one, the lower claim_at of each
-- partition kept. sluice_claim_rows uses it to read a cycle's own finish's lowerings
-- (sluice_finish_partitions, left to the claim) together with the task's: the claim's scans
-- start at the lower of the two, as they did when the finish wrote its floors first.
CREATE OR REPLACE FUNCTION public.sluice_floor_low_least(a jsonb, b jsonb)
 RETURNS jsonb
 LANGUAGE sql
 IMMUTABLE
AS $function$
  SELECT CASE WHEN b IS NULL OR b = '{}'::jsonb THEN a
              WHEN a IS NULL OR a = '{}'::jsonb THEN b
              ELSE (SELECT jsonb_object_agg(x.k, x.v) FROM (
                      SELECT u.key AS k, min(u.value::timestamp without time zone) AS v
                      FROM (SELECT * FROM jsonb_each_text(a) UNION ALL SELECT * FROM jsonb_each_text(b)) u
                      GROUP BY u.key) x)
         END
$function$;
