-- Up Migration
-- Canceled executions (operator actions: services/execution-cancel.ts).
--
-- A new final state, `canceled`, beside succeeded and dead: finished_at is set, the row
-- leaves every index of unfinished work (claim, waiting, stream, running), and the
-- counters move as for any finish — partition depth (or spilled) falls, group_slots.queued
-- falls, partition_stats.canceled_total counts it.
--
-- Waiting work (queued, scheduled, blocked; spilled rows in `overflow`) is canceled at once
-- by server/db/cancel-executions.ts, in the engine's lock order. A canceled stream head
-- releases its stream in the same transaction (sluice_promote_streams below).
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
-- sluice_finish: a row with cancel_requested_at finishes as `canceled` whatever failure
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

-- Streams whose head finished or was canceled: promote each one's next blocked execution
-- (lowest id), under the stream's advisory lock (sorted) so a concurrent enqueue cannot
-- slip a row in unseen. Was inline in sluice_finish; one definition for both now. Caller
-- holds the task_runtime row lock. Returns how many rows it promoted.
CREATE FUNCTION sluice_promote_streams(p_task text, p_streams text[]) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  v_key text;
  v_n   integer;
BEGIN
  IF coalesce(cardinality(p_streams), 0) = 0 THEN RETURN 0; END IF;
  FOR v_key IN SELECT DISTINCT s FROM unnest(p_streams) s WHERE s IS NOT NULL ORDER BY s LOOP
    PERFORM pg_advisory_xact_lock(hashtextextended(p_task || chr(31) || v_key, 0));
  END LOOP;
  UPDATE executions e SET state = 'queued', run_at = greatest(e.run_at, now())
  FROM (SELECT DISTINCT s AS k FROM unnest(p_streams) s WHERE s IS NOT NULL) AS s
  CROSS JOIN LATERAL (
    SELECT b.id FROM executions b
    WHERE b.task = p_task AND b.stream_key = s.k AND b.state IN ('blocked', 'queued', 'running')
    ORDER BY b.id LIMIT 1
  ) nxt
  WHERE e.id = nxt.id AND e.state = 'blocked';
  GET DIAGNOSTICS v_n = ROW_COUNT;
  RETURN v_n;
END
$$;
ALTER FUNCTION sluice_promote_streams(text, text[]) SET plan_cache_mode = force_generic_plan;

-- sluice_finish as in migration 20261123000700000 (its comments hold), except:
--  * the effective outcome of a row with cancel_requested_at is `canceled` unless the
--    runner reports `succeeded` (see the top of this file); `canceled` is accepted;
--  * canceled: state canceled, finished_at set, attempts kept, no attempt row, no dead
--    letter, no latency sample; in_flight falls, canceled_total counts it; its stream's
--    next execution is promoted as for succeeded and dead;
--  * the promotion is sluice_promote_streams (same statement, now shared with the cancel).
-- The reply's outcome is the effective one.
CREATE OR REPLACE FUNCTION sluice_finish(
  p_task text, p_ids bigint[], p_tokens uuid[], p_outcomes text[], p_run_at timestamptz[],
  p_errors text[], p_stacks text[], p_fingerprints text[], p_only_expired boolean DEFAULT false,
  p_stale_ms integer DEFAULT 0
)
RETURNS TABLE (id bigint, outcome text)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_ids       bigint[];
  v_outcomes  text[];
  v_parts     integer[];
  v_buckets   integer[];
  v_gks       text[];
  v_gk_out    text[];
  v_streams   text[];
  v_groups    jsonb;
  v_new       text[];
BEGIN
  IF EXISTS (SELECT 1 FROM unnest(p_outcomes) o WHERE o IS NULL OR o NOT IN ('succeeded', 'retry', 'dead', 'release', 'canceled')) THEN
    RAISE EXCEPTION 'sluice_finish: outcomes must be succeeded, retry, dead, release or canceled' USING ERRCODE = '22023';
  END IF;
  SELECT t.groups INTO v_groups FROM task_runtime t WHERE t.task = p_task FOR NO KEY UPDATE;

  WITH input AS (
    -- The effective outcome: a cancel request turns any failure or hand-back into
    -- `canceled`. Read under the task lock, which every cancel request also takes, so it
    -- cannot change before the UPDATE below. One PK probe per item (LATERAL … LIMIT 1).
    SELECT i.id, i.token,
           CASE WHEN c.cancel_requested_at IS NOT NULL AND i.outcome <> 'succeeded' THEN 'canceled' ELSE i.outcome END AS outcome,
           i.run_at, i.error, i.stack, i.fingerprint
    FROM unnest(p_ids, p_tokens, p_outcomes, p_run_at, p_errors, p_stacks, p_fingerprints)
      AS i(id, token, outcome, run_at, error, stack, fingerprint)
    LEFT JOIN LATERAL (SELECT e0.cancel_requested_at FROM executions e0 WHERE e0.id = i.id LIMIT 1) c ON true
  ),
  upd AS (
    UPDATE executions e
    SET state = CASE i.outcome WHEN 'succeeded' THEN 'succeeded' WHEN 'dead' THEN 'dead' WHEN 'canceled' THEN 'canceled' ELSE 'queued' END,
        run_at = CASE i.outcome WHEN 'retry' THEN i.run_at ELSE e.run_at END,  -- a release keeps its place
        attempts = CASE i.outcome WHEN 'release' THEN e.attempts - 1 ELSE e.attempts END,
        finished_at = CASE WHEN i.outcome IN ('succeeded', 'dead', 'canceled') THEN now() END,
        last_error = CASE WHEN i.outcome IN ('retry', 'dead') THEN i.error ELSE e.last_error END,
        lease_token = NULL, lease_expires_at = NULL  -- lease_owner stays: the last runner
    FROM input i
    -- By primary key: `IS NOT DISTINCT FROM` (the same test as `=`, state is NOT NULL)
    -- keeps the planner from using executions_running_idx, whose rows (every task's
    -- running executions) it otherwise joined against the whole input batch.
    WHERE e.id = i.id AND e.lease_token = i.token AND e.state IS NOT DISTINCT FROM 'running' AND e.task = p_task
      AND (NOT p_only_expired OR e.lease_expires_at < now() OR NOT EXISTS (
            SELECT 1 FROM coordinators c
            WHERE c.id = e.lease_owner AND c.stopped_at IS NULL
              AND c.last_heartbeat_at >= now() - make_interval(secs => p_stale_ms / 1000.0)))
    RETURNING e.id, e.partition, e.group_keys, e.groups, e.stream_key, e.idempotency_key, e.payload,
              e.attempts, e.enqueued_at, e.started_at, i.outcome, i.error, i.stack, i.fingerprint,
              e.lease_owner AS old_owner
  ),
  attempts_ins AS (
    INSERT INTO execution_attempts (execution_id, task, attempt, coordinator_id, started_at, outcome, error, stack, fingerprint)
    SELECT u.id, p_task, u.attempts, u.old_owner, u.started_at, u.outcome, coalesce(u.error, 'unknown error'), u.stack, u.fingerprint
    FROM upd u WHERE u.outcome IN ('retry', 'dead')
  ),
  dead_ins AS (
    INSERT INTO dead_letters (execution_id, task, payload, groups, stream_key, idempotency_key, partition, attempts,
                              last_error, stack, fingerprint, enqueued_at)
    SELECT u.id, p_task, u.payload, u.groups, u.stream_key, u.idempotency_key, u.partition, u.attempts,
           coalesce(u.error, 'unknown error'), u.stack, coalesce(u.fingerprint, ''), u.enqueued_at
    FROM upd u WHERE u.outcome = 'dead'
    ON CONFLICT (execution_id) DO NOTHING
  )
  SELECT array_agg(u.id), array_agg(u.outcome), array_agg(u.partition),
         array_agg(CASE WHEN u.outcome IN ('succeeded', 'dead')
                        THEN sluice_latency_bucket(extract(epoch FROM (now() - u.enqueued_at)) * 1000) END),
         (SELECT coalesce(array_agg(k.gk), '{}') FROM upd u2 CROSS JOIN LATERAL unnest(u2.group_keys) k(gk)),
         (SELECT coalesce(array_agg(u2.outcome), '{}') FROM upd u2 CROSS JOIN LATERAL unnest(u2.group_keys) k(gk)),
         coalesce(array_agg(DISTINCT u.stream_key) FILTER (WHERE u.stream_key IS NOT NULL AND u.outcome IN ('succeeded', 'dead', 'canceled')), '{}')
  INTO v_ids, v_outcomes, v_parts, v_buckets, v_gks, v_gk_out, v_streams
  FROM upd u;
  IF v_ids IS NULL THEN RETURN; END IF;

  UPDATE task_runtime t SET in_flight = greatest(t.in_flight - cardinality(v_ids), 0) WHERE t.task = p_task;

  PERFORM 1 FROM partition_stats ps WHERE ps.task = p_task AND ps.partition = ANY (v_parts)
  ORDER BY ps.partition FOR NO KEY UPDATE;
  UPDATE partition_stats ps
  SET in_flight = greatest(ps.in_flight - d.n, 0),
      depth = ps.depth + d.requeued,
      processed_total = ps.processed_total + d.succeeded,
      failed_total = ps.failed_total + d.failed,
      retried_total = ps.retried_total + d.retried,
      dead_total = ps.dead_total + d.dead,
      canceled_total = ps.canceled_total + d.canceled,
      lat_hist = CASE WHEN d.buckets IS NULL THEN ps.lat_hist ELSE sluice_hist_add(ps.lat_hist, d.buckets) END,
      updated_at = now()
  FROM (
    SELECT x.part, count(*) AS n,
           count(*) FILTER (WHERE x.outcome IN ('retry', 'release')) AS requeued,
           count(*) FILTER (WHERE x.outcome = 'succeeded') AS succeeded,
           count(*) FILTER (WHERE x.outcome IN ('retry', 'dead')) AS failed,
           count(*) FILTER (WHERE x.outcome = 'retry') AS retried,
           count(*) FILTER (WHERE x.outcome = 'dead') AS dead,
           count(*) FILTER (WHERE x.outcome = 'canceled') AS canceled,
           array_agg(x.bucket) FILTER (WHERE x.bucket IS NOT NULL) AS buckets
    FROM unnest(v_parts, v_outcomes, v_buckets) AS x(part, outcome, bucket)
    GROUP BY x.part
  ) d
  WHERE ps.task = p_task AND ps.partition = d.part;

  IF cardinality(v_gks) > 0 THEN
    -- One sorted upsert (see migration 20261123000700000).
    WITH up AS (
      INSERT INTO group_slots AS gs (task, group_name, group_key, in_flight, queued, last_used_at)
      SELECT p_task, split_part(x.gk, '=', 1), substr(x.gk, strpos(x.gk, '=') + 1), count(*),
             count(*) FILTER (WHERE x.outcome IN ('retry', 'release')), now()
      FROM unnest(v_gks, v_gk_out) AS x(gk, outcome) GROUP BY x.gk ORDER BY 2, 3
      ON CONFLICT (task, group_name, group_key) DO UPDATE
        SET in_flight = greatest(gs.in_flight - excluded.in_flight, 0), queued = gs.queued + excluded.queued,
            last_used_at = now()
      RETURNING gs.group_name, gs.group_key, (gs.xmax = 0) AS inserted
    )
    SELECT coalesce(array_agg(up.group_name || '=' || up.group_key) FILTER (WHERE up.inserted), '{}') INTO v_new FROM up;
    IF cardinality(v_new) > 0 THEN
      UPDATE group_slots gs SET in_flight = 0
      WHERE gs.task = p_task AND gs.group_name || '=' || gs.group_key = ANY (v_new);
    END IF;
    IF EXISTS (
      SELECT 1 FROM executions w WHERE w.task = p_task AND w.state = 'queued' AND w.waiting_on IS NOT NULL
      ORDER BY w.waiting_on, w.run_at, w.id LIMIT 1  -- executions_waiting_idx's order: never a seq scan
    ) THEN
      PERFORM sluice_release_keys(p_task, v_groups, v_gks);
    END IF;
  END IF;

  IF cardinality(v_streams) > 0 THEN
    PERFORM sluice_promote_streams(p_task, v_streams);
  END IF;

  RETURN QUERY SELECT x.id, x.outcome FROM unnest(v_ids, v_outcomes) AS x(id, outcome);
END
$$;
ALTER FUNCTION sluice_finish(text, bigint[], uuid[], text[], timestamptz[], text[], text[], text[], boolean, integer)
  SET plan_cache_mode = force_generic_plan;

-- Down Migration
-- Not reversible in place (sluice_finish would have to be restated as it was, and canceled
-- rows have no earlier state to go back to). Roll forward.
DO $$ BEGIN
  RAISE EXCEPTION 'migration canceled_executions cannot be undone; apply a new migration instead';
END $$;
