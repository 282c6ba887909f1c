-- sluice_run_keys_plus(keys, n, ids): the claim's running count per key (sluice_claim_rows'
-- v_run_keys / v_run_n: parallel arrays) with every key of the given executions counted
-- once more — rows a claim pass kept, which the next pass's ranking must count as running
-- (a fair pass's rows; a round that looks again past the keys it filled, 2026-12-02).
-- Keys come back in no particular order. One read of the kept rows by primary key.
-- plpgsql with cached generic plans since 2026-12-07 (sluice_release_oldest.sql says why).

CREATE OR REPLACE FUNCTION public.sluice_run_keys_plus(p_keys text[], p_n integer[], p_ids bigint[], OUT keys text[], OUT n integer[])
 RETURNS record
 LANGUAGE plpgsql
 SET plan_cache_mode TO 'force_generic_plan'
 SET enable_seqscan TO 'off'
 SET jit TO 'off'
AS $function$
#variable_conflict use_column
BEGIN
  SELECT array_agg(z.gk), array_agg(z.n) INTO keys, n FROM (
    SELECT u.gk, sum(u.n)::integer AS n FROM (
      SELECT r.gk, r.n FROM unnest(p_keys, p_n) AS r(gk, n)
      UNION ALL
      SELECT k.gk, 1 FROM executions e CROSS JOIN LATERAL unnest(e.group_keys) AS k(gk) WHERE e.id = ANY (p_ids)
    ) u GROUP BY u.gk) z;
END
$function$;
