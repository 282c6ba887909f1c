-- Protect (issue 23): a circuit breaker per task, and staged backpressure per partition.

-- The breaker's state, one row per task that has had one (server/services/circuit-breaker.ts
-- keeps it; every coordinator reads it before claiming, so an open breaker holds the task
-- cluster-wide). `window_counts` is the closed state's outcome window (core/circuit-breaker.ts
-- WindowEntry[], at most ~60 entries); `since` is when the current state began; `reason`
-- why it is in it (the counts and rate that tripped it, a failed probe, an operator's reset).
CREATE TABLE task_breakers (
  task              text PRIMARY KEY,
  state             text NOT NULL DEFAULT 'closed' CHECK (state IN ('closed', 'open', 'half-open')),
  since             timestamptz NOT NULL DEFAULT now(),
  reason            text NOT NULL DEFAULT '',
  window_counts     jsonb NOT NULL DEFAULT '[]',
  opened_at         timestamptz,
  probes_started    integer NOT NULL DEFAULT 0,
  probes_succeeded  integer NOT NULL DEFAULT 0,
  trips_total       bigint NOT NULL DEFAULT 0,
  updated_at        timestamptz NOT NULL DEFAULT now()
);

-- Each transition, for the console's history and the audit of resets.
CREATE TABLE task_breaker_events (
  id          bigserial PRIMARY KEY,
  task        text NOT NULL,
  from_state  text NOT NULL,
  to_state    text NOT NULL,
  reason      text NOT NULL,
  actor       text,
  at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX task_breaker_events_task_idx ON task_breaker_events (task, id DESC);

-- Staged backpressure: the stage each partition's last enqueue met (normal / throttle /
-- policy, core/backpressure-stages.ts) and how many times it changed.
ALTER TABLE partition_stats ADD COLUMN bp_stage text NOT NULL DEFAULT 'normal',
                            ADD COLUMN bp_stage_changes bigint NOT NULL DEFAULT 0;

ALTER TABLE alerts DROP CONSTRAINT alerts_rule_check;
ALTER TABLE alerts ADD CONSTRAINT alerts_rule_check CHECK (rule IN (
  'depth', 'imbalance', 'retryRate', 'dlqRate', 'p99LatencyMs', 'hotPartition', 'hotKey',
  'shedPerSecond', 'rejectRate', 'waitP99Ms',
  'coordinatorStale', 'unownedPartitions', 'configBehind', 'maintenanceFailing', 'reconcileRepairs',
  'dlqNearFull', 'dbConnections', 'vacuumHorizon', 'deadTuples',
  'circuitOpen'));
