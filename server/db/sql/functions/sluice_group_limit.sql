-- sluice_group_limit(groups, group_name, group_key): a key's concurrency limit from a
-- task_runtime.groups document ({"tenant": {"limit": 20, "overrides": {"acme": 50}}}):
-- an override beats the group default; a group no longer in the config constrains
-- nothing (NULL). Used by the claim's saturation test and ranking, and by
-- sluice_release_keys to size a release. IMMUTABLE LANGUAGE sql, so it is inlined.
-- Unchanged since prisma/migrations/20261123000200000_engine.

CREATE OR REPLACE FUNCTION public.sluice_group_limit(groups jsonb, group_name text, group_key text)
 RETURNS integer
 LANGUAGE sql
 IMMUTABLE
AS $function$
  SELECT coalesce((groups -> group_name -> 'overrides' ->> group_key)::integer, (groups -> group_name ->> 'limit')::integer)
$function$;
