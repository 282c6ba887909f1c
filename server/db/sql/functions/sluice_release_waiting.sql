-- sluice_release_waiting(task): the sweep. For every key the task's rows wait on,
-- release as many rows as the key has room for (sluice_release_keys). Needed where room
-- appears without a finish: a config apply that raised or removed a limit
-- (server/db/sync-task-runtime.ts), or the reconciler repairing a drifted in_flight
-- count. Takes the task_runtime row lock itself (the engine's lock order starts there).
-- Returns how many rows it released.
-- Unchanged since prisma/migrations/20261123000600000_waiting_rows.

CREATE OR REPLACE FUNCTION public.sluice_release_waiting(p_task text)
 RETURNS integer
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_groups jsonb;
  v_keys   text[];
BEGIN
  SELECT t.groups INTO v_groups FROM task_runtime t WHERE t.task = p_task FOR NO KEY UPDATE;
  IF NOT FOUND THEN v_groups := '{}'::jsonb; END IF;
  SELECT array_agg(DISTINCT w.waiting_on) INTO v_keys
  FROM executions w WHERE w.task = p_task AND w.state = 'queued' AND w.waiting_on IS NOT NULL;
  IF v_keys IS NULL THEN RETURN 0; END IF;
  RETURN sluice_release_keys(p_task, v_groups, v_keys);
END
$function$;
