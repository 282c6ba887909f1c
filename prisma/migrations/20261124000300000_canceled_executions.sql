-- Up Migration
-- Canceled executions (operator actions: services/execution-actions.ts, execution-cancel-matching.ts).
--
-- A new final state, `canceled`, beside succeeded and dead: finished_at is set, the row
-- leaves every index of unfinished work (claim, waiting, stream, running), and the
-- counters move as for any finish — partition depth (or spilled) falls, group_slots.queued
-- falls, partition_stats.canceled_total counts it.
--
-- Waiting work (queued, scheduled, blocked; spilled rows in `overflow`) is canceled at once
-- by server/db/cancel-executions.ts, in the engine's lock order. A canceled stream head
-- releases its stream in the same transaction (sluice_promote_streams).
--
-- Running work is NOT canceled at once: the row stays `running` with cancel_requested_at
-- set, and its coordinator (NOTIFY sluice_cancel, plus a poll of its running ids) aborts
-- the handler's AbortSignal and records the finish as `canceled` through sluice_finish.
-- Why not free the slots at once: the claim counts a key's and the task's running
-- executions to decide what may start (a key's in_flight = its running rows, migration
-- 20261123000700000). Marking the row finished while its handler still runs would let the
-- next claim start another execution beside it: a group limit of 8 would briefly run 9.
-- So the slots and the stream are freed when the coordinator acknowledges (it aborts and
-- records within a round trip, the same way a timeout frees the slot), or, if that
-- coordinator is gone, when the lease expires and the rescuer finishes the row — the
-- rescuer's retry/dead becomes `canceled` too (see sluice_finish).
--
-- sluice_finish (server/db/sql/functions/sluice_finish.sql): a row with cancel_requested_at finishes as `canceled` whatever failure
-- outcome its runner reports (retry, dead, release: the abort made the handler fail, and a
-- canceled execution must not run again); a `succeeded` stays succeeded (the handler
-- completed before it saw the abort: the work happened). `canceled` is also an outcome a
-- coordinator may send. A late finish of a row that is already canceled matches nothing
-- (state must be running): fenced, as a finish from a lost lease is.

ALTER TABLE executions DROP CONSTRAINT executions_state_check;
ALTER TABLE executions ADD CONSTRAINT executions_state_check
  CHECK (state IN ('blocked', 'queued', 'running', 'succeeded', 'dead', 'canceled')) NOT VALID;
ALTER TABLE executions VALIDATE CONSTRAINT executions_state_check;
-- Set when an operator asked to cancel the execution (running: until its coordinator acts).
ALTER TABLE executions ADD COLUMN cancel_requested_at timestamptz;

ALTER TABLE partition_stats ADD COLUMN canceled_total bigint NOT NULL DEFAULT 0;

-- Retention deletes canceled rows as it deletes succeeded ones.
DROP INDEX executions_finished_idx;
CREATE INDEX executions_finished_idx ON executions (finished_at) WHERE state IN ('succeeded', 'dead', 'canceled');

-- Cancel by filter, in two steps like the DLQ purge (dlq_purge_previews): the preview
-- freezes the exact ids; the cancel changes those ids only, once, before expires_at.
CREATE TABLE execution_cancel_previews (
  id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  task              text NOT NULL,
  filter            jsonb NOT NULL,
  total             integer NOT NULL,
  created_by_type   text NOT NULL,
  created_by_id     text,
  created_by_label  text NOT NULL,
  created_at        timestamptz NOT NULL DEFAULT now(),
  expires_at        timestamptz NOT NULL,
  applied_at        timestamptz,
  applied_count     integer,
  applied_by_label  text
);
CREATE INDEX execution_cancel_previews_expires_idx ON execution_cancel_previews (expires_at);

CREATE TABLE execution_cancel_preview_items (
  preview_id    uuid NOT NULL REFERENCES execution_cancel_previews (id) ON DELETE CASCADE,
  execution_id  bigint NOT NULL,
  PRIMARY KEY (preview_id, execution_id)
);

-- Functions (server/db/sql/functions, applied after this migration by the repeatable
-- step): sluice_finish.sql records `canceled` (the rule above) and counts canceled_total;
-- sluice_promote_streams.sql (new) releases streams for it and for the cancel. A
-- coordinator of the previous release neither sends `canceled` nor listens for cancels:
-- a cancel of an execution it runs waits for its lease to expire, and the rescuer's
-- finish then records it canceled.

-- Down Migration
-- Not reversible in place (canceled rows have no earlier state to go back to). Roll forward.
DO $$ BEGIN
  RAISE EXCEPTION 'migration canceled_executions cannot be undone; apply a new migration instead';
END $$;
