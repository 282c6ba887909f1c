-- sluice_claim_floors(task, partitions, low): each partition's effective claim floor, aligned
-- with the partitions given, as (claim_at, id) pairs in two arrays: partition_stats'
-- (claim_floor, claim_floor_id), or (the entry for it in `low`, the task's claim_floor_low as
-- the caller read it under the task lock, 0) when that is not above it (migration 20261203000100000_claim_floor); ('-infinity', 0) when neither is
-- known. No claimable row of the partition lies before it in (claim_at, id) order, so every
-- scan of the partition's head in executions_claim_idx / executions_fair_idx starts there:
-- under a held snapshot the entries before it are those of rows claimed or set aside since,
-- none of which the scan would return. Read by sluice_claim_rows under the task lock (the
-- floor cannot rise meanwhile; it may fall, and a row that made it fall is committed after
-- this claim's snapshot or read by its next statement's).
-- (issue #18, 2026-12-03)

CREATE OR REPLACE FUNCTION public.sluice_claim_floors(p_task text, p_parts integer[], p_low jsonb)
 RETURNS TABLE(ats timestamp without time zone[], ids bigint[])
 LANGUAGE sql
 STABLE
AS $function$
  SELECT coalesce(array_agg(f.at ORDER BY p.ord), '{}'), coalesce(array_agg(f.id ORDER BY p.ord), '{}')
  FROM unnest(p_parts) WITH ORDINALITY AS p(part, ord)
  LEFT JOIN partition_stats ps ON ps.task = p_task AND ps.partition = p.part
  CROSS JOIN LATERAL (SELECT (p_low ->> p.part::text)::timestamp AS low) l
  CROSS JOIN LATERAL (
    SELECT CASE WHEN l.low IS NOT NULL AND l.low <= coalesce(ps.claim_floor, 'infinity') THEN l.low
                ELSE coalesce(ps.claim_floor, '-infinity') END AS at,
           CASE WHEN l.low IS NOT NULL AND l.low <= coalesce(ps.claim_floor, 'infinity') THEN 0
                ELSE coalesce(ps.claim_floor_id, 0) END AS id
  ) f
$function$;
