-- sluice_task_counters_init(): AFTER INSERT trigger on task_runtime (task_counters_init):
-- creates the task's task_counters row (in_flight 0, no running floor, no lowered claim
-- floors) with its task_runtime row, whichever release's apply inserts it. The trigger is
-- schema (prisma/migrations/20261207000100000_task_counters, which says why the counters
-- have a row of their own); only the function lives here.

CREATE OR REPLACE FUNCTION public.sluice_task_counters_init()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  INSERT INTO task_counters (task) VALUES (NEW.task) ON CONFLICT (task) DO NOTHING;
  RETURN NULL;
END
$function$;
