-- Health (issue 16): backpressure outcomes counted all the way to the charts, each
-- coordinator's own timings on its row (one liveness predicate), and the alert rules
-- for backpressure, wait time and the fleet.

-- Throttled executions (accepted with a backpressure delay) next to shed/rejected/spilled.
ALTER TABLE partition_stats ADD COLUMN throttled_total bigint NOT NULL DEFAULT 0;

-- The sampler's cursor gains the spilled and throttled totals; existing cursors start at
-- the current totals so the first sample after this migration is not one huge delta.
ALTER TABLE metric_cursor ADD COLUMN spilled_total bigint NOT NULL DEFAULT 0,
                          ADD COLUMN throttled_total bigint NOT NULL DEFAULT 0;
UPDATE metric_cursor c SET spilled_total = ps.spilled_total
FROM partition_stats ps WHERE ps.task = c.task AND ps.partition = c.partition;

-- Per-interval counts (metric_samples.spilled stays the gauge of parked executions).
ALTER TABLE metric_samples ADD COLUMN spills bigint NOT NULL DEFAULT 0,
                           ADD COLUMN throttled bigint NOT NULL DEFAULT 0;
ALTER TABLE metric_rollups ADD COLUMN spills bigint NOT NULL DEFAULT 0,
                           ADD COLUMN throttled bigint NOT NULL DEFAULT 0;
ALTER TABLE metric_rollup_series ADD COLUMN shed bigint, ADD COLUMN rejected bigint,
                                 ADD COLUMN spills bigint, ADD COLUMN throttled bigint;

-- Each coordinator's own timings, written when it registers: the console judges every
-- member by the threshold that member uses itself (server/db/coordinator-liveness.ts).
ALTER TABLE coordinators ADD COLUMN heartbeat_ms integer, ADD COLUMN stale_ms integer,
                         ADD COLUMN lease_grace_ms integer;

ALTER TABLE alerts DROP CONSTRAINT alerts_rule_check;
ALTER TABLE alerts ADD CONSTRAINT alerts_rule_check CHECK (rule IN (
  'depth', 'imbalance', 'retryRate', 'dlqRate', 'p99LatencyMs', 'hotPartition', 'hotKey',
  'shedPerSecond', 'rejectRate', 'waitP99Ms',
  'coordinatorStale', 'unownedPartitions', 'configBehind', 'maintenanceFailing', 'reconcileRepairs',
  'dlqNearFull', 'dbConnections', 'vacuumHorizon', 'deadTuples'));

-- Wait (ready at run_at → claimed) and run (claimed → finished) histograms next to the
-- enqueue → finish one (sluice_finish adds to them; the sampler diffs them for p99s).
ALTER TABLE partition_stats ADD COLUMN wait_hist bigint[] NOT NULL DEFAULT '{}',
                            ADD COLUMN run_hist bigint[] NOT NULL DEFAULT '{}';
ALTER TABLE metric_cursor ADD COLUMN wait_hist bigint[] NOT NULL DEFAULT '{}',
                          ADD COLUMN run_hist bigint[] NOT NULL DEFAULT '{}';
ALTER TABLE metric_samples ADD COLUMN wait_p99_ms double precision, ADD COLUMN run_p99_ms double precision;
ALTER TABLE metric_rollups ADD COLUMN wait_p99_ms double precision, ADD COLUMN run_p99_ms double precision;
ALTER TABLE metric_rollup_series ADD COLUMN wait_p99_ms double precision, ADD COLUMN run_p99_ms double precision;

-- Each maintenance run records the interval it runs at, so "not run in 3× its interval"
-- can be judged from the table alone (server/core/alert-fleet-rules.ts).
ALTER TABLE maintenance_runs ADD COLUMN interval_ms integer;
