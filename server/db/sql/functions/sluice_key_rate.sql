-- sluice_key_rate(groups, group_name, group_key): a key's rate limit from a
-- task_runtime.groups document ({"tenant": {"limit": 20, "rate": {"limit": 50, "per": 1000,
-- "burst": 5, "overrides": {"acme": {"limit": 100}}}}}): the group's rate with the key's
-- override fields on top, as {"limit", "per", "burst"} (plus the group's "overrides",
-- ignored); NULL when the group has no rate or is no longer in the config. The same rule
-- as effectiveKeyRate in server/core/rate-limit.ts. IMMUTABLE LANGUAGE sql, so it is
-- inlined. Issue #19 (rate limits), 2026-11-24.

CREATE OR REPLACE FUNCTION public.sluice_key_rate(groups jsonb, group_name text, group_key text)
 RETURNS jsonb
 LANGUAGE sql
 IMMUTABLE
AS $function$
  SELECT (groups -> group_name -> 'rate') || coalesce(groups -> group_name -> 'rate' -> 'overrides' -> group_key, '{}')
$function$;
