-- sluice_release_room(groups, key, used): how many rows waiting on `key` ('group=key', or
-- 'rate:group=key' for a rate-parked row) a release may let go when `used` of the key's
-- slots are taken. NULL = every row (the key's group, or its rate, is no longer configured:
-- nothing to wait for); 0 for a rate-parked key whose rate is still set (the claim releases
-- those when the key's next slot comes) and for a fair-share group's key (the claim gives
-- its rows back when the key falls below its share: a release up to the limit re-clogged
-- the head — 2 coordinators, 90% flood: t0 40%); else limit − used, at least 0.
-- One rule for the two releases that count `used` differently: sluice_release_rows (the
-- finish's and the config sweep's, from group_slots) and sluice_release_stranded (the
-- reconciler's, from the rows). A single SELECT of immutable expressions, so the planner
-- inlines it.

CREATE OR REPLACE FUNCTION public.sluice_release_room(p_groups jsonb, p_gk text, p_used integer)
 RETURNS integer
 LANGUAGE sql
 IMMUTABLE
AS $function$
  SELECT CASE WHEN p_gk LIKE 'rate:%' THEN
                CASE WHEN sluice_key_rate(p_groups, split_part(substr(p_gk, 6), '=', 1), substr(p_gk, strpos(p_gk, '=') + 1)) IS NULL THEN NULL ELSE 0 END
              WHEN sluice_group_limit(p_groups, split_part(p_gk, '=', 1), substr(p_gk, strpos(p_gk, '=') + 1)) IS NULL THEN NULL
              WHEN p_groups -> split_part(p_gk, '=', 1) ? 'fair' THEN 0
              ELSE greatest(sluice_group_limit(p_groups, split_part(p_gk, '=', 1), substr(p_gk, strpos(p_gk, '=') + 1)) - p_used, 0) END
$function$;
