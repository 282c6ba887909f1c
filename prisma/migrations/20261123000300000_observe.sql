-- Up Migration
-- Observe: metric roll-ups, alerts and their history, webhook targets and deliveries.
-- Coordinators write raw metric_samples every few seconds (engine migration); the
-- control plane's `rollup-metrics` service folds them into fixed time buckets here, and
-- every chart reads these buckets (or the live counters), never the executions table.

-- ---------------------------------------------------------------------------------
-- Roll-ups
-- ---------------------------------------------------------------------------------

-- One row per (resolution, task, partition, bucket); partition = -1 is the task total,
-- as in metric_samples. Levels (depth, in_flight) keep max, sum (÷ samples = mean) and
-- the last value; counts are sums of the sample deltas; latency keeps the max of the
-- samples' percentiles (percentiles cannot be merged exactly, max is the safe bound).
-- The key leads with (resolution, task, bucket) because every read is "one task, one
-- resolution, a time range, all partitions".
CREATE TABLE metric_rollups (
  resolution_s    integer NOT NULL CHECK (resolution_s IN (10, 60, 300, 3600)),
  task            text NOT NULL,
  bucket          timestamptz NOT NULL,
  partition       integer NOT NULL CHECK (partition >= -1),
  samples         integer NOT NULL CHECK (samples > 0),
  covered_ms      bigint NOT NULL,
  last_at         timestamptz NOT NULL,
  depth_last      bigint NOT NULL,
  depth_max       bigint NOT NULL,
  depth_sum       bigint NOT NULL,
  in_flight_last  integer NOT NULL,
  in_flight_max   integer NOT NULL,
  spilled_max     bigint NOT NULL,
  arrivals        bigint NOT NULL,
  processed       bigint NOT NULL,
  failed          bigint NOT NULL,
  retried         bigint NOT NULL,
  dead_lettered   bigint NOT NULL,
  shed            bigint NOT NULL,
  rejected        bigint NOT NULL,
  latency_p50_ms  double precision,
  latency_p99_ms  double precision,
  PRIMARY KEY (resolution_s, task, bucket, partition)
);
-- Retention deletes by (resolution, bucket) across all tasks.
CREATE INDEX metric_rollups_retention_idx ON metric_rollups (resolution_s, bucket);

-- The same buckets folded per task: one row per (resolution, task, bucket) with the
-- partitions' max depths as parallel arrays and the task total's counts. Charts read
-- these: 64 partitions × 360 buckets is 360 short rows instead of 23,000 (the per-
-- partition rows above serve windows per partition and retention). Written by the
-- roll-up service in the same transaction as the buckets it folds.
CREATE TABLE metric_rollup_series (
  resolution_s    integer NOT NULL CHECK (resolution_s IN (10, 60, 300, 3600)),
  task            text NOT NULL,
  bucket          timestamptz NOT NULL,
  partitions      integer[] NOT NULL,
  depths          bigint[] NOT NULL,
  total_depth     bigint,
  covered_ms      bigint,
  arrivals        bigint,
  processed       bigint,
  failed          bigint,
  retried         bigint,
  dead_lettered   bigint,
  latency_p50_ms  double precision,
  latency_p99_ms  double precision,
  PRIMARY KEY (resolution_s, task, bucket)
);
CREATE INDEX metric_rollup_series_retention_idx ON metric_rollup_series (resolution_s, bucket);

-- How far each resolution is rolled up: complete for every bucket ending at or before
-- rolled_until. Rollup lag (Prometheus) = now − rolled_until.
CREATE TABLE metric_rollup_state (
  resolution_s  integer PRIMARY KEY,
  rolled_until  timestamptz NOT NULL,
  updated_at    timestamptz NOT NULL DEFAULT now()
);

-- ---------------------------------------------------------------------------------
-- Alerts
-- ---------------------------------------------------------------------------------

-- One row per alert episode (pending → firing → acknowledged → resolved); a condition
-- that comes back after resolving opens a new row, so the list doubles as history.
-- `key` = task|rule|subject deduplicates: at most one open episode per key.
-- The state columns mirror server/core/alert-rules.ts AlertState.
CREATE TABLE alerts (
  id                bigserial PRIMARY KEY,
  key               text NOT NULL,
  task              text NOT NULL,
  rule              text NOT NULL CHECK (rule IN ('depth', 'imbalance', 'retryRate', 'dlqRate', 'p99LatencyMs', 'hotPartition', 'hotKey')),
  subject           text NOT NULL DEFAULT '',
  partition         integer,
  group_name        text,
  group_key         text,
  severity          text NOT NULL CHECK (severity IN ('warning', 'critical')),
  status            text NOT NULL CHECK (status IN ('pending', 'firing', 'acknowledged', 'resolved')),
  since             timestamptz NOT NULL,
  breaching_since   timestamptz,
  clear_since       timestamptz,
  fired_at          timestamptz,
  acknowledged_at   timestamptz,
  acknowledged_by   text,
  resolved_at       timestamptz,
  resolved_by       text,
  silenced_until    timestamptz,
  silenced_by       text,
  last_value        double precision,
  peak_value        double precision,
  threshold         double precision,
  last_observed_at  timestamptz NOT NULL,
  evidence          jsonb NOT NULL DEFAULT '{}',
  remedy            text,
  created_at        timestamptz NOT NULL DEFAULT now(),
  updated_at        timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX alerts_open_key ON alerts (key) WHERE status IN ('pending', 'firing', 'acknowledged');
-- The Alerts page: alerts that fired, newest first (keyset on fired_at, id).
CREATE INDEX alerts_fired_idx ON alerts (fired_at DESC, id DESC) WHERE fired_at IS NOT NULL;
-- The evaluator's "latest episode of this key" (silences carry into the next episode).
CREATE INDEX alerts_key_idx ON alerts (key, id DESC);
-- …and which keys still have a running silence.
CREATE INDEX alerts_silenced_idx ON alerts (silenced_until) WHERE silenced_until IS NOT NULL;

-- Every transition and operator action on an alert.
CREATE TABLE alert_events (
  id        bigserial PRIMARY KEY,
  alert_id  bigint NOT NULL REFERENCES alerts (id) ON DELETE CASCADE,
  at        timestamptz NOT NULL DEFAULT now(),
  type      text NOT NULL CHECK (type IN ('fired', 'escalated', 'acknowledged', 'silenced', 'resolved')),
  actor     text NOT NULL DEFAULT 'system',
  value     double precision,
  severity  text,
  silenced  boolean NOT NULL DEFAULT false,
  detail    jsonb
);
CREATE INDEX alert_events_alert_idx ON alert_events (alert_id, id);

-- ---------------------------------------------------------------------------------
-- Notifications
-- ---------------------------------------------------------------------------------

-- Where alert notifications go. `secret` signs each body (HMAC-SHA256 in
-- X-Sluice-Signature); it is never sent back to the browser.
CREATE TABLE webhook_targets (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name          text NOT NULL UNIQUE,
  url           text NOT NULL,
  secret        text,
  enabled       boolean NOT NULL DEFAULT true,
  min_severity  text NOT NULL DEFAULT 'warning' CHECK (min_severity IN ('warning', 'critical')),
  created_by    text NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now()
);

-- One row per (event, target): the outbox the `deliver-webhooks` service drains, and the
-- delivery log the Settings page shows.
CREATE TABLE webhook_deliveries (
  id               bigserial PRIMARY KEY,
  target_id        uuid NOT NULL REFERENCES webhook_targets (id) ON DELETE CASCADE,
  alert_id         bigint REFERENCES alerts (id) ON DELETE SET NULL,
  event            text NOT NULL,
  payload          jsonb NOT NULL,
  status           text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts         integer NOT NULL DEFAULT 0,
  max_attempts     integer NOT NULL DEFAULT 5,
  next_attempt_at  timestamptz NOT NULL DEFAULT now(),
  last_attempt_at  timestamptz,
  response_status  integer,
  last_error       text,
  duration_ms      integer,
  created_at       timestamptz NOT NULL DEFAULT now(),
  delivered_at     timestamptz
);
-- The sender's queue: due pending rows.
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
-- The delivery log per target, newest first.
CREATE INDEX webhook_deliveries_target_idx ON webhook_deliveries (target_id, id DESC);

-- Down Migration
DROP TABLE webhook_deliveries;
DROP TABLE webhook_targets;
DROP TABLE alert_events;
DROP TABLE alerts;
DROP TABLE metric_rollup_state;
DROP TABLE metric_rollup_series;
DROP TABLE metric_rollups;
