-- Up Migration
-- The engine: config versions, coordinators, the execution queue and its counters,
-- group slots, spill overflow, attempts, dead letters, metric samples, reconciliation,
-- and the plpgsql functions that claim and finish executions in one round trip each.
-- docs/architecture.md describes the state machine and the lock order:
--   task_runtime row → execution rows → partition_stats rows (sorted)
--   → group_slots rows (sorted) → stream advisory locks (sorted)
-- Every function below takes its locks in that order, so nothing deadlocks.

-- ---------------------------------------------------------------------------------
-- Config
-- ---------------------------------------------------------------------------------

-- Immutable, monotonically numbered snapshots of the whole configuration. `version` is
-- max+1 taken under an advisory lock (services/config-versions.ts), so it has no gaps.
CREATE TABLE config_versions (
  version      bigint PRIMARY KEY CHECK (version > 0),
  config       jsonb NOT NULL,
  author       text NOT NULL,
  author_type  text NOT NULL DEFAULT 'system',
  author_id    text,
  message      text NOT NULL DEFAULT '',
  based_on     bigint REFERENCES config_versions (version),
  created_at   timestamptz NOT NULL DEFAULT now()
);

-- ---------------------------------------------------------------------------------
-- Coordinators and partition ownership
-- ---------------------------------------------------------------------------------

CREATE TABLE coordinators (
  id                 uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name               text NOT NULL,
  host               text NOT NULL,
  pid                integer NOT NULL,
  tasks              text[] NOT NULL DEFAULT '{}',
  slots              integer NOT NULL CHECK (slots > 0),
  in_flight          integer NOT NULL DEFAULT 0,
  metrics_port       integer,
  started_at         timestamptz NOT NULL DEFAULT now(),
  last_heartbeat_at  timestamptz NOT NULL DEFAULT now(),
  applied_version    bigint,
  applied_at         timestamptz,
  apply_ms           integer,
  apply_error        text,
  draining           boolean NOT NULL DEFAULT false,
  stopped_at         timestamptz
);
-- Live-member lookups (ownership, rescuer) filter on stopped_at IS NULL + heartbeat.
CREATE INDEX coordinators_live_idx ON coordinators (last_heartbeat_at) WHERE stopped_at IS NULL;

-- ---------------------------------------------------------------------------------
-- Per-task runtime state and per-partition counters
-- ---------------------------------------------------------------------------------

-- One row per task of the current config (active) or of an earlier one (inactive).
-- `groups` is the claim's view of the limits: {"tenant": {"limit": 20, "overrides": {"acme": 50}}}.
-- The claim function locks this row first: it serialises the claimers and finishers of
-- one task, which is what makes the limits exact (docs/architecture.md).
CREATE TABLE task_runtime (
  task            text PRIMARY KEY,
  definition      jsonb NOT NULL,
  concurrency     integer NOT NULL CHECK (concurrency > 0),
  partitions      integer NOT NULL CHECK (partitions > 0),
  paused          boolean NOT NULL DEFAULT false,
  groups          jsonb NOT NULL DEFAULT '{}',
  in_flight       integer NOT NULL DEFAULT 0,
  active          boolean NOT NULL DEFAULT true,
  config_version  bigint NOT NULL,
  updated_at      timestamptz NOT NULL DEFAULT now()
);

-- Counters per (task, partition); depth = queued (incl. scheduled) + blocked. Updated
-- at enqueue (under the row lock, so backpressure sees an exact depth), claim and finish.
-- lat_hist: enqueue→finish latency histogram (bucket bounds in sluice_latency_bucket),
-- cumulative; the metrics sampler diffs it to get p50/p99 without touching executions.
CREATE TABLE partition_stats (
  task             text NOT NULL,
  partition        integer NOT NULL CHECK (partition >= 0),
  depth            bigint NOT NULL DEFAULT 0,
  in_flight        integer NOT NULL DEFAULT 0,
  spilled          bigint NOT NULL DEFAULT 0,
  arrivals_total   bigint NOT NULL DEFAULT 0,
  processed_total  bigint NOT NULL DEFAULT 0,
  failed_total     bigint NOT NULL DEFAULT 0,
  retried_total    bigint NOT NULL DEFAULT 0,
  dead_total       bigint NOT NULL DEFAULT 0,
  shed_total       bigint NOT NULL DEFAULT 0,
  rejected_total   bigint NOT NULL DEFAULT 0,
  spilled_total    bigint NOT NULL DEFAULT 0,
  lat_hist         bigint[] NOT NULL DEFAULT '{}',
  updated_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (task, partition)
);

-- One owner column per (task, partition): two owners at once cannot exist. NULL = free.
CREATE TABLE partition_owners (
  task       text NOT NULL,
  partition  integer NOT NULL,
  owner      uuid REFERENCES coordinators (id) ON DELETE SET NULL,
  since      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (task, partition)
);
-- The claim reads "partitions of task T owned by me".
CREATE INDEX partition_owners_owner_idx ON partition_owners (owner, task);

-- Every ownership change (take or release), for the rebalance view and tests.
CREATE TABLE partition_owner_log (
  id         bigserial PRIMARY KEY,
  at         timestamptz NOT NULL DEFAULT clock_timestamp(),
  task       text NOT NULL,
  partition  integer NOT NULL,
  owner      uuid,
  event      text NOT NULL CHECK (event IN ('take', 'release'))
);
CREATE INDEX partition_owner_log_task_idx ON partition_owner_log (task, at);

-- Round-robin routing counters live in one sequence per task (sluice_rr_<task>,
-- created by config apply): nextval takes no row lock, so enqueues never queue up
-- behind one counter row, and each task's counter stays dense (even spread mod P).

-- ---------------------------------------------------------------------------------
-- Executions
-- ---------------------------------------------------------------------------------

CREATE TABLE executions (
  id                bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  task              text NOT NULL,
  partition         integer NOT NULL,
  state             text NOT NULL CHECK (state IN ('blocked', 'queued', 'running', 'succeeded', 'dead')),
  payload           jsonb NOT NULL,
  -- {group name: key} as the producer sees it; group_keys is the same as 'name=key'
  -- strings for the claim's array-overlap test against saturated keys.
  groups            jsonb NOT NULL DEFAULT '{}',
  group_keys        text[] NOT NULL DEFAULT '{}',
  stream_key        text,
  idempotency_key   text,
  attempts          integer NOT NULL DEFAULT 0,
  run_at            timestamptz NOT NULL DEFAULT now(),
  enqueued_at       timestamptz NOT NULL DEFAULT now(),
  started_at        timestamptz,
  finished_at       timestamptz,
  lease_owner       uuid,
  lease_token       uuid,
  lease_expires_at  timestamptz,
  last_error        text
);
-- The claim: per owned partition, queued rows in (run_at, id) order from run_at <= now().
-- Partial, so the index holds only the backlog, not millions of finished rows.
CREATE INDEX executions_claim_idx ON executions (task, partition, run_at, id) WHERE state = 'queued';
-- Streams: "does this stream have an unfinished execution" at enqueue, and "lowest
-- blocked id of this stream" at promotion.
CREATE INDEX executions_stream_idx ON executions (task, stream_key, id)
  WHERE stream_key IS NOT NULL AND state IN ('blocked', 'queued', 'running');
-- Lease rescuer: running rows (at most the sum of concurrencies) by owner.
CREATE INDEX executions_running_idx ON executions (lease_owner, lease_expires_at) WHERE state = 'running';
-- Idempotency keys dedupe per task for as long as the execution row exists.
CREATE UNIQUE INDEX executions_idempotency_key ON executions (task, idempotency_key) WHERE idempotency_key IS NOT NULL;
-- Retention of finished rows.
CREATE INDEX executions_finished_idx ON executions (finished_at) WHERE state IN ('succeeded', 'dead');

-- Per-key slot counts (the "slots" of seed 001 kept as counts), created lazily at
-- enqueue, GC'd when idle. queued counts queued + blocked executions carrying the key.
CREATE TABLE group_slots (
  task          text NOT NULL,
  group_name    text NOT NULL,
  group_key     text NOT NULL,
  in_flight     integer NOT NULL DEFAULT 0,
  queued        integer NOT NULL DEFAULT 0,
  last_used_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (task, group_name, group_key)
);
-- The claim computes saturated keys from rows with in_flight > 0 only: their number is
-- bounded by the task's concurrency however many keys exist (pg-boss#842).
CREATE INDEX group_slots_busy_idx ON group_slots (task) INCLUDE (group_name, group_key, in_flight) WHERE in_flight > 0;
-- Slot GC: idle rows.
CREATE INDEX group_slots_idle_idx ON group_slots (last_used_at) WHERE in_flight = 0 AND queued = 0;

-- Spill: executions parked when a partition is over maxDepth under the `spill` policy.
-- ids come from the executions sequence, so the id a producer got stays the id of the
-- execution once drained back (in id order, per partition).
CREATE TABLE overflow (
  id               bigint PRIMARY KEY DEFAULT nextval('executions_id_seq'),
  task             text NOT NULL,
  partition        integer NOT NULL,
  payload          jsonb NOT NULL,
  groups           jsonb NOT NULL DEFAULT '{}',
  group_keys       text[] NOT NULL DEFAULT '{}',
  stream_key       text,
  idempotency_key  text,
  run_at           timestamptz NOT NULL DEFAULT now(),
  enqueued_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX overflow_drain_idx ON overflow (task, partition, id);
CREATE INDEX overflow_stream_idx ON overflow (task, stream_key) WHERE stream_key IS NOT NULL;
CREATE UNIQUE INDEX overflow_idempotency_key ON overflow (task, idempotency_key) WHERE idempotency_key IS NOT NULL;

-- Every failed attempt (error, timeout, lease expiry), kept for the DLQ view.
CREATE TABLE execution_attempts (
  id              bigserial PRIMARY KEY,
  execution_id    bigint NOT NULL,
  task            text NOT NULL,
  attempt         integer NOT NULL,
  coordinator_id  uuid,
  started_at      timestamptz,
  failed_at       timestamptz NOT NULL DEFAULT now(),
  outcome         text NOT NULL CHECK (outcome IN ('retry', 'dead')),
  error           text NOT NULL,
  stack           text,
  fingerprint     text
);
CREATE INDEX execution_attempts_execution_idx ON execution_attempts (execution_id, attempt);

CREATE TABLE dead_letters (
  id                     bigserial PRIMARY KEY,
  execution_id           bigint NOT NULL UNIQUE,
  task                   text NOT NULL,
  payload                jsonb NOT NULL,
  groups                 jsonb NOT NULL DEFAULT '{}',
  stream_key             text,
  idempotency_key        text,
  partition              integer NOT NULL,
  attempts               integer NOT NULL,
  last_error             text NOT NULL,
  stack                  text,
  fingerprint            text NOT NULL,
  enqueued_at            timestamptz NOT NULL,
  dead_at                timestamptz NOT NULL DEFAULT now(),
  replayed_at            timestamptz,
  replay_execution_id    bigint
);
-- Keyset pagination newest first, overall and filtered by task / fingerprint / both.
CREATE INDEX dead_letters_dead_at_idx ON dead_letters (dead_at DESC, id DESC);
CREATE INDEX dead_letters_task_idx ON dead_letters (task, dead_at DESC, id DESC);
CREATE INDEX dead_letters_fingerprint_idx ON dead_letters (fingerprint, dead_at DESC, id DESC);
CREATE INDEX dead_letters_task_fingerprint_idx ON dead_letters (task, fingerprint, dead_at DESC, id DESC);

-- ---------------------------------------------------------------------------------
-- Metrics, reconciliation, maintenance
-- ---------------------------------------------------------------------------------

-- One row per (task, partition) per sample interval; partition = -1 is the task total
-- (latency percentiles cannot be summed across partitions, so the sampler writes them).
-- Counts are deltas over interval_ms; depth/in_flight are levels at `at`.
CREATE TABLE metric_samples (
  task            text NOT NULL,
  partition       integer NOT NULL,
  at              timestamptz NOT NULL,
  interval_ms     integer NOT NULL,
  depth           bigint NOT NULL,
  in_flight       integer NOT NULL,
  spilled         bigint NOT NULL DEFAULT 0,
  arrivals        bigint NOT NULL,
  processed       bigint NOT NULL,
  failed          bigint NOT NULL,
  retried         bigint NOT NULL,
  dead_lettered   bigint NOT NULL,
  shed            bigint NOT NULL DEFAULT 0,
  rejected        bigint NOT NULL DEFAULT 0,
  latency_p50_ms  double precision,
  latency_p99_ms  double precision,
  PRIMARY KEY (task, partition, at)
);
-- Charts read a task's time range (the PK serves per-partition ranges too).
CREATE INDEX metric_samples_at_idx ON metric_samples (at);

-- Top group keys by in_flight + queued at each sample.
CREATE TABLE metric_top_keys (
  task        text NOT NULL,
  at          timestamptz NOT NULL,
  group_name  text NOT NULL,
  group_key   text NOT NULL,
  in_flight   integer NOT NULL,
  queued      integer NOT NULL,
  PRIMARY KEY (task, at, group_name, group_key)
);

-- The sampler's cursor: cumulative counters as of the last sample, to diff against.
CREATE TABLE metric_cursor (
  task             text NOT NULL,
  partition        integer NOT NULL,
  at               timestamptz NOT NULL,
  arrivals_total   bigint NOT NULL,
  processed_total  bigint NOT NULL,
  failed_total     bigint NOT NULL,
  retried_total    bigint NOT NULL,
  dead_total       bigint NOT NULL,
  shed_total       bigint NOT NULL,
  rejected_total   bigint NOT NULL,
  lat_hist         bigint[] NOT NULL,
  PRIMARY KEY (task, partition)
);

-- Each counter mismatch the reconciler found and repaired (seed 003).
CREATE TABLE reconcile_log (
  id          bigserial PRIMARY KEY,
  at          timestamptz NOT NULL DEFAULT now(),
  task        text NOT NULL,
  counter     text NOT NULL,
  partition   integer,
  group_name  text,
  group_key   text,
  recorded    bigint NOT NULL,
  actual      bigint NOT NULL
);
CREATE INDEX reconcile_log_at_idx ON reconcile_log (at DESC);

-- Maintenance services (River style): one row per service, claimed per interval.
CREATE TABLE maintenance_runs (
  name              text PRIMARY KEY,
  last_started_at   timestamptz,
  last_finished_at  timestamptz,
  last_duration_ms  integer,
  last_result       jsonb,
  last_error        text,
  last_coordinator  uuid,
  runs              bigint NOT NULL DEFAULT 0
);

-- ---------------------------------------------------------------------------------
-- Functions
-- ---------------------------------------------------------------------------------

-- Latency buckets (upper bounds in ms); the last bucket is +Inf. Prometheus-style.
CREATE FUNCTION sluice_latency_bounds() RETURNS double precision[]
LANGUAGE sql IMMUTABLE AS $$
  SELECT ARRAY[1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000, 60000, 300000]::double precision[]
$$;

-- 1-based bucket index of a latency in ms (17 = above the last bound).
CREATE FUNCTION sluice_latency_bucket(ms double precision) RETURNS integer
LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce((SELECT min(i) FROM generate_subscripts(sluice_latency_bounds(), 1) i
                   WHERE ms <= (sluice_latency_bounds())[i]), 17)
$$;

-- hist + counts of the given bucket indexes, as a 17-element array.
CREATE FUNCTION sluice_hist_add(hist bigint[], buckets integer[]) RETURNS bigint[]
LANGUAGE sql IMMUTABLE AS $$
  SELECT array_agg(coalesce(hist[i], 0) + coalesce((SELECT count(*) FROM unnest(buckets) b WHERE b = i), 0) ORDER BY i)
  FROM generate_series(1, 17) i
$$;

-- The saturation test and the per-key limit: an override beats the group default; a
-- group no longer in the config constrains nothing (NULL).
CREATE FUNCTION sluice_group_limit(groups jsonb, group_name text, group_key text) RETURNS integer
LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce((groups -> group_name -> 'overrides' ->> group_key)::integer, (groups -> group_name ->> 'limit')::integer)
$$;

-- Claim up to p_max queued executions of p_task from the partitions p_coordinator owns.
-- One call = one round trip and one commit. Shape (docs/architecture.md § Claiming):
--  1. lock the task_runtime row (own statement → the next statements see every counter
--     the previous claimer committed);
--  2. free = least(p_max, concurrency − in_flight);
--  3. saturated keys = group_slots rows with in_flight ≥ limit (bounded by concurrency);
--  4. candidates: per owned partition the oldest claimable rows that touch no saturated
--     key (index range scan, LATERAL per partition so each reads at most `window` rows),
--     merged oldest-first; within the window each candidate is ranked per key and kept
--     only when in_flight(key) + rank ≤ limit(key) for all its keys (may under-admit
--     inside one round, never over-admits);
--  5. the first `free` kept rows become running with a fresh lease token; counters move.
-- The candidate scan takes no row locks (no FOR UPDATE SKIP LOCKED): every claimer and
-- finisher of the task holds the task_runtime lock, so nobody else can change a queued
-- row of this task meanwhile, and locking window rows we then drop would write a tuple
-- lock per row. The final UPDATE re-checks state = 'queued' under its row lock anyway.
CREATE FUNCTION sluice_claim(p_coordinator uuid, p_task text, p_max integer, p_lease_ms integer)
RETURNS TABLE (
  id bigint, task text, partition integer, attempts integer, payload jsonb, groups jsonb,
  stream_key text, idempotency_key text, lease_token uuid, enqueued_at timestamptz, run_at timestamptz
)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  v_rt      record;
  v_free    integer;
  v_owned   integer[];
  v_sat     text[];
  v_window  integer;
  v_ids     bigint[];
  v_token   uuid := gen_random_uuid();
  v_got     bigint[];
  v_parts   integer[];
  v_gks     text[];
BEGIN
  -- Cheap exit for idle polls: nothing claimable in my partitions → return before taking
  -- the task lock, so the transaction stays read-only (no xid, no WAL flush at commit).
  IF NOT EXISTS (
    SELECT 1 FROM partition_owners o
    JOIN executions e ON e.task = o.task AND e.partition = o.partition AND e.state = 'queued' AND e.run_at <= now()
    WHERE o.owner = p_coordinator AND o.task = p_task
  ) THEN
    RETURN;
  END IF;
  SELECT t.concurrency, t.in_flight, t.paused, t.groups, t.active INTO v_rt
  FROM task_runtime t WHERE t.task = p_task FOR NO KEY UPDATE;
  IF NOT FOUND OR v_rt.paused OR NOT v_rt.active THEN RETURN; END IF;
  v_free := least(p_max, v_rt.concurrency - v_rt.in_flight);
  IF v_free <= 0 THEN RETURN; END IF;

  SELECT array_agg(o.partition ORDER BY o.partition) INTO v_owned
  FROM partition_owners o WHERE o.owner = p_coordinator AND o.task = p_task;
  IF v_owned IS NULL THEN RETURN; END IF;

  IF v_rt.groups = '{}'::jsonb THEN
    SELECT array_agg(c.id ORDER BY c.run_at, c.id) INTO v_ids FROM (
      SELECT x.id, x.run_at
      FROM unnest(v_owned) AS p(part)
      CROSS JOIN LATERAL (
        SELECT e.id, e.run_at FROM executions e
        WHERE e.task = p_task AND e.partition = p.part AND e.state = 'queued' AND e.run_at <= now()
        ORDER BY e.run_at, e.id
        LIMIT v_free
      ) x
      ORDER BY x.run_at, x.id
      LIMIT v_free
    ) c;
  ELSE
    SELECT coalesce(array_agg(gs.group_name || '=' || gs.group_key), '{}') INTO v_sat
    FROM group_slots gs
    WHERE gs.task = p_task AND gs.in_flight > 0
      AND gs.in_flight >= sluice_group_limit(v_rt.groups, gs.group_name, gs.group_key);
    v_window := least(v_free * 4 + 16, 2000);
    WITH cand AS (
      SELECT x.id, x.group_keys, row_number() OVER (ORDER BY x.run_at, x.id) AS ord
      FROM (
        SELECT y.id, y.run_at, y.group_keys
        FROM unnest(v_owned) AS p(part)
        CROSS JOIN LATERAL (
          SELECT e.id, e.run_at, e.group_keys FROM executions e
          WHERE e.task = p_task AND e.partition = p.part AND e.state = 'queued' AND e.run_at <= now()
            AND NOT (e.group_keys && v_sat)
          ORDER BY e.run_at, e.id
          LIMIT v_window
        ) y
        ORDER BY y.run_at, y.id
        LIMIT v_window
      ) x
    ),
    ck AS (
      SELECT c.id, k.gk, row_number() OVER (PARTITION BY k.gk ORDER BY c.ord) AS rn
      FROM cand c CROSS JOIN LATERAL unnest(c.group_keys) AS k(gk)
    ),
    -- One PK probe per distinct key in the window (LATERAL), never a scan of the task's
    -- slot rows: the cost follows the window, not the number of keys (1k vs 10k).
    keys AS (
      SELECT d.gk, coalesce(gs.in_flight, 0) AS used, sluice_group_limit(v_rt.groups, d.gname, d.gkey) AS lim
      FROM (SELECT DISTINCT ck.gk, split_part(ck.gk, '=', 1) AS gname, substr(ck.gk, strpos(ck.gk, '=') + 1) AS gkey FROM ck) d
      LEFT JOIN LATERAL (
        SELECT s.in_flight FROM group_slots s WHERE s.task = p_task AND s.group_name = d.gname AND s.group_key = d.gkey
      ) gs ON true
    ),
    bad AS (
      SELECT DISTINCT ck.id FROM ck JOIN keys USING (gk)
      WHERE keys.lim IS NOT NULL AND keys.used + ck.rn > keys.lim
    )
    SELECT array_agg(s.id ORDER BY s.ord) INTO v_ids FROM (
      SELECT c.id, c.ord FROM cand c WHERE NOT EXISTS (SELECT 1 FROM bad b WHERE b.id = c.id)
      ORDER BY c.ord LIMIT v_free
    ) s;
  END IF;
  IF v_ids IS NULL THEN RETURN; END IF;

  WITH upd AS (
    UPDATE executions e
    SET state = 'running', attempts = e.attempts + 1, started_at = clock_timestamp(),
        lease_owner = p_coordinator, lease_token = v_token,
        lease_expires_at = now() + make_interval(secs => p_lease_ms / 1000.0)
    WHERE e.id = ANY (v_ids) AND e.state = 'queued' AND e.task = p_task
    RETURNING e.id, e.partition, e.group_keys
  )
  SELECT array_agg(u.id), array_agg(u.partition),
         (SELECT coalesce(array_agg(k.gk), '{}') FROM upd u2 CROSS JOIN LATERAL unnest(u2.group_keys) k(gk))
  INTO v_got, v_parts, v_gks FROM upd u;
  IF v_got IS NULL THEN RETURN; END IF;

  UPDATE task_runtime t SET in_flight = t.in_flight + cardinality(v_got) WHERE t.task = p_task;

  PERFORM 1 FROM partition_stats ps WHERE ps.task = p_task AND ps.partition = ANY (v_parts)
  ORDER BY ps.partition FOR NO KEY UPDATE;
  UPDATE partition_stats ps SET depth = ps.depth - d.n, in_flight = ps.in_flight + d.n, updated_at = now()
  FROM (SELECT p AS part, count(*) AS n FROM unnest(v_parts) p GROUP BY p) d
  WHERE ps.task = p_task AND ps.partition = d.part;

  IF cardinality(v_gks) > 0 THEN
    INSERT INTO group_slots AS gs (task, group_name, group_key, in_flight, queued, last_used_at)
    SELECT p_task, split_part(g, '=', 1), substr(g, strpos(g, '=') + 1), count(*), 0, now()
    FROM unnest(v_gks) g GROUP BY g ORDER BY 2, 3
    ON CONFLICT (task, group_name, group_key) DO UPDATE
      SET in_flight = gs.in_flight + excluded.in_flight,
          queued = greatest(gs.queued - excluded.in_flight, 0),
          last_used_at = now();
  END IF;

  RETURN QUERY
  SELECT e.id, e.task, e.partition, e.attempts, e.payload, e.groups, e.stream_key, e.idempotency_key,
         e.lease_token, e.enqueued_at, e.run_at
  FROM executions e WHERE e.id = ANY (v_got)
  ORDER BY e.run_at, e.id;
END
$$;

-- Finish a batch of running executions of one task: succeeded, retry (back to queued
-- at p_run_at, the stream head stays put), dead (plus a dead_letters row), or release
-- (shutdown: back to queued now, the attempt not counted). Matches on (id, lease_token,
-- state = running): a completion from a lost lease matches nothing (fenced).
-- p_only_expired: the lease rescuer's variant, finishes only rows whose lease has run
-- out or whose owner is gone (re-checked here under the row lock).
-- Returns the ids it finished; the caller learns which were fenced by their absence.
CREATE FUNCTION sluice_finish(
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
  v_key       text;
BEGIN
  IF EXISTS (SELECT 1 FROM unnest(p_outcomes) o WHERE o IS NULL OR o NOT IN ('succeeded', 'retry', 'dead', 'release')) THEN
    RAISE EXCEPTION 'sluice_finish: outcomes must be succeeded, retry, dead or release' USING ERRCODE = '22023';
  END IF;
  PERFORM 1 FROM task_runtime t WHERE t.task = p_task FOR NO KEY UPDATE;

  WITH input AS (
    SELECT * FROM unnest(p_ids, p_tokens, p_outcomes, p_run_at, p_errors, p_stacks, p_fingerprints)
      AS i(id, token, outcome, run_at, error, stack, fingerprint)
  ),
  upd AS (
    UPDATE executions e
    SET state = CASE i.outcome WHEN 'succeeded' THEN 'succeeded' WHEN 'dead' THEN 'dead' ELSE 'queued' END,
        run_at = CASE i.outcome WHEN 'retry' THEN i.run_at WHEN 'release' THEN now() ELSE e.run_at END,
        attempts = CASE i.outcome WHEN 'release' THEN e.attempts - 1 ELSE e.attempts END,
        finished_at = CASE WHEN i.outcome IN ('succeeded', 'dead') THEN now() END,
        last_error = CASE WHEN i.outcome IN ('retry', 'dead') THEN i.error ELSE e.last_error END,
        lease_token = NULL, lease_expires_at = NULL  -- lease_owner stays: the last runner
    FROM input i
    WHERE e.id = i.id AND e.lease_token = i.token AND e.state = 'running' AND e.task = p_task
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
         coalesce(array_agg(DISTINCT u.stream_key) FILTER (WHERE u.stream_key IS NOT NULL AND u.outcome IN ('succeeded', 'dead')), '{}')
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
      lat_hist = CASE WHEN d.buckets IS NULL THEN ps.lat_hist ELSE sluice_hist_add(ps.lat_hist, d.buckets) END,
      updated_at = now()
  FROM (
    SELECT x.part, count(*) AS n,
           count(*) FILTER (WHERE x.outcome IN ('retry', 'release')) AS requeued,
           count(*) FILTER (WHERE x.outcome = 'succeeded') AS succeeded,
           count(*) FILTER (WHERE x.outcome IN ('retry', 'dead')) AS failed,
           count(*) FILTER (WHERE x.outcome = 'retry') AS retried,
           count(*) FILTER (WHERE x.outcome = 'dead') AS dead,
           array_agg(x.bucket) FILTER (WHERE x.bucket IS NOT NULL) AS buckets
    FROM unnest(v_parts, v_outcomes, v_buckets) AS x(part, outcome, bucket)
    GROUP BY x.part
  ) d
  WHERE ps.task = p_task AND ps.partition = d.part;

  IF cardinality(v_gks) > 0 THEN
    PERFORM 1 FROM group_slots gs
    WHERE gs.task = p_task AND (gs.group_name || '=' || gs.group_key) = ANY (v_gks)
    ORDER BY gs.group_name, gs.group_key FOR NO KEY UPDATE;
    UPDATE group_slots gs
    SET in_flight = greatest(gs.in_flight - d.n, 0), queued = gs.queued + d.requeued, last_used_at = now()
    FROM (
      SELECT split_part(x.gk, '=', 1) AS gname, substr(x.gk, strpos(x.gk, '=') + 1) AS gkey, count(*) AS n,
             count(*) FILTER (WHERE x.outcome IN ('retry', 'release')) AS requeued
      FROM unnest(v_gks, v_gk_out) AS x(gk, outcome) GROUP BY x.gk
    ) d
    WHERE gs.task = p_task AND gs.group_name = d.gname AND gs.group_key = d.gkey;
  END IF;

  -- Streams whose head finished: promote the next blocked execution (lowest id), under
  -- the stream's advisory lock so a concurrent enqueue cannot slip a row in unseen.
  IF cardinality(v_streams) > 0 THEN
    FOR v_key IN SELECT s FROM unnest(v_streams) s ORDER BY s LOOP
      PERFORM pg_advisory_xact_lock(hashtextextended(p_task || chr(31) || v_key, 0));
    END LOOP;
    UPDATE executions e SET state = 'queued', run_at = greatest(e.run_at, now())
    FROM unnest(v_streams) AS s(k)
    CROSS JOIN LATERAL (
      SELECT b.id FROM executions b
      WHERE b.task = p_task AND b.stream_key = s.k AND b.state IN ('blocked', 'queued', 'running')
      ORDER BY b.id LIMIT 1
    ) nxt
    WHERE e.id = nxt.id AND e.state = 'blocked';
  END IF;

  RETURN QUERY SELECT x.id, x.outcome FROM unnest(v_ids, v_outcomes) AS x(id, outcome);
END
$$;

-- The claim's statements are planned once per session (generic plans): their shape
-- does not depend on the parameter values, and re-planning the grouped CTE per call
-- cost more than executing it (~15 ms planning on a loaded 2-core box).
ALTER FUNCTION sluice_claim(uuid, text, integer, integer) SET plan_cache_mode = force_generic_plan;
ALTER FUNCTION sluice_finish(text, bigint[], uuid[], text[], timestamptz[], text[], text[], text[], boolean, integer) SET plan_cache_mode = force_generic_plan;

-- Down Migration
DROP FUNCTION sluice_finish(text, bigint[], uuid[], text[], timestamptz[], text[], text[], text[], boolean, integer);
DROP FUNCTION sluice_claim(uuid, text, integer, integer);
DROP FUNCTION sluice_group_limit(jsonb, text, text);
DROP FUNCTION sluice_hist_add(bigint[], integer[]);
DROP FUNCTION sluice_latency_bucket(double precision);
DROP FUNCTION sluice_latency_bounds();
DROP TABLE maintenance_runs;
DROP TABLE reconcile_log;
DROP TABLE metric_cursor;
DROP TABLE metric_top_keys;
DROP TABLE metric_samples;
DROP TABLE dead_letters;
DROP TABLE execution_attempts;
DROP TABLE overflow;
DROP TABLE group_slots;
DROP TABLE executions;
DROP TABLE partition_owner_log;
DROP TABLE partition_owners;
DROP TABLE partition_stats;
DROP TABLE task_runtime;
DROP TABLE coordinators;
DROP TABLE config_versions;
