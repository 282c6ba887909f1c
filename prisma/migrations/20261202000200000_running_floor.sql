-- The running floor (issue #18, the held snapshot): the reads of a task's running rows — the
-- claim's keys in use, the release's room, why-waiting's fair share — read
-- executions_running_idx from task_runtime.running_floor, a lower bound on when the task's
-- running rows started, instead of the task's whole range of the index. While another
-- session holds a snapshot, the index keeps an entry for every execution that ran since
-- (none removable), and the claim read them all: 24,392 buffers per claim 20 s into
-- bench:soak's hold, half the claim's time (docs/benchmarks.md, twelfth session).
-- The index is ordered by start time (it was (task, id)): executions start in any id order —
-- a row that waited minutes for its key (W2's keys have limit 1) has an old id — but each
-- starts now, so the entries below the floor are those of rows that started earlier and
-- finished, and only a handler still running from long ago holds the floor back.
-- Invariant: every running execution of the task that carries a group key started at or
-- after running_floor (the readers read keys only; keys are fixed at enqueue). Only the claim
-- makes a row running; it lowers the floor to the start of each row it starts (a clock set
-- back) and, for a grouped task, raises it to the earliest start of the running rows with a
-- key it read (under the task lock, in the same transaction). The reconciler checks it and
-- repairs it (reconcile_log 'task.running_floor'). '-infinity' = no bound, the value for
-- existing rows.
ALTER TABLE task_runtime ADD COLUMN running_floor timestamptz NOT NULL DEFAULT '-infinity';
DROP INDEX executions_running_idx;
CREATE INDEX executions_running_idx ON executions (task, started_at) WHERE state = 'running';
