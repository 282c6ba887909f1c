-- Up Migration
-- task_counters: the three values of a task the engine moves every cycle — in_flight, the
-- running floor, the claim floors lowered under the task lock — in a narrow row of their
-- own, out of task_runtime (issue #18, the held snapshot).
--
-- Why: while another session holds a snapshot, no version of a row updated since can be
-- removed, and every read of the row (an index probe then a walk of every version on every
-- page the row has moved through) passes all of them. task_runtime's row carries the task's
-- definition and groups (1,669 bytes for bench:soak's W2 task: 4 versions a page), and a
-- cycle updated it once and read or locked it 5–7 times: ~1,200 buffers and ~1 ms each, 25 s
-- into bench:soak's hold (docs/benchmarks.md, eighteenth session). Here a version is ~60
-- bytes (~130 a page), and task_runtime's own row is no longer updated by the engine: the
-- task lock (FOR NO KEY UPDATE on it) marks the one version in place, and the reads of the
-- definition, groups and rates by the claim, the finish and the enqueue find one version.
--
-- Writers: every change of these values holds the task lock (task_runtime's row), as before.
-- The row is created with the task's task_runtime row (trigger below, so a previous
-- release's apply creates it too) and goes with it.
--
-- Rolling upgrade: task_runtime keeps in_flight, running_floor and claim_floor_low for this
-- release (the previous release's functions read them between this migration and the
-- function files' step, and its coordinators' reads of in_flight stay valid SQL); this
-- release's functions and code neither read nor write them. The values are copied here;
-- what a previous release's cycle moves after the copy is repaired by the reconciler
-- (reconcile_log 'task.in_flight', 'task.running_floor', 'partition.claim_floor').
-- The next release's migration drops the three columns.
CREATE TABLE task_counters (
  task            text PRIMARY KEY REFERENCES task_runtime (task) ON DELETE CASCADE,
  in_flight       integer NOT NULL DEFAULT 0,
  running_floor   timestamptz NOT NULL DEFAULT '-infinity',
  claim_floor_low jsonb NOT NULL DEFAULT '{}'
);
ALTER TABLE task_counters SET (autovacuum_vacuum_cost_delay = 0);
INSERT INTO task_counters (task, in_flight, running_floor, claim_floor_low)
SELECT task, in_flight, running_floor, claim_floor_low FROM task_runtime;

-- The trigger's function is needed now; its file (server/db/sql/functions/
-- sluice_task_counters_init.sql) holds the same text, re-applied once by the function step.
CREATE OR REPLACE FUNCTION public.sluice_task_counters_init()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  INSERT INTO task_counters (task) VALUES (NEW.task) ON CONFLICT (task) DO NOTHING;
  RETURN NULL;
END
$function$;
CREATE TRIGGER task_counters_init AFTER INSERT ON task_runtime
  FOR EACH ROW EXECUTE FUNCTION sluice_task_counters_init();

-- Down Migration
DROP TRIGGER IF EXISTS task_counters_init ON task_runtime;
DROP FUNCTION IF EXISTS sluice_task_counters_init();
UPDATE task_runtime t SET in_flight = c.in_flight, running_floor = c.running_floor, claim_floor_low = c.claim_floor_low
FROM task_counters c WHERE c.task = t.task;
DROP TABLE IF EXISTS task_counters;
