-- sluice_release_keys(task, groups, keys): release rows waiting on the given keys, with the
-- group_slots counters current — sluice_release_rows (which says how) without `net`. This
-- name and reply stay for callers of every release.
-- Since prisma/migrations/20261123000600000_waiting_rows; claim order since the priorities (#19).
-- plpgsql since 2026-12-07 (sluice_release_oldest.sql says why); sluice_release_rows
-- takes each key once itself.

CREATE OR REPLACE FUNCTION public.sluice_release_keys(p_task text, p_groups jsonb, p_keys text[])
 RETURNS integer
 LANGUAGE plpgsql
AS $function$
BEGIN
  RETURN sluice_release_rows(p_task, p_groups, p_keys, false);
END
$function$;
