-- Up Migration
-- Canceled executions in the sampled metrics, as succeeded (processed) and dead are:
-- partition_stats.canceled_total (20261124000300000_canceled_executions.sql) is diffed by
-- the sampler (server/db/write-metric-samples.ts) into metric_samples.canceled, summed by
-- the roll-ups into metric_rollups.canceled and metric_rollup_series.canceled, and
-- exported as sluice_task_finished_total{outcome="canceled"} (control-plane metrics).
ALTER TABLE metric_samples ADD COLUMN canceled bigint NOT NULL DEFAULT 0;
ALTER TABLE metric_rollups ADD COLUMN canceled bigint NOT NULL DEFAULT 0;
ALTER TABLE metric_rollup_series ADD COLUMN canceled bigint;
ALTER TABLE metric_cursor ADD COLUMN canceled_total bigint NOT NULL DEFAULT 0;
-- The cursor starts from today's totals: the cancels before this migration were never
-- sampled, and must not land in the next sample as one burst.
UPDATE metric_cursor c SET canceled_total = ps.canceled_total
  FROM partition_stats ps WHERE ps.task = c.task AND ps.partition = c.partition;

-- Down Migration
ALTER TABLE metric_cursor DROP COLUMN canceled_total;
ALTER TABLE metric_rollup_series DROP COLUMN canceled;
ALTER TABLE metric_rollups DROP COLUMN canceled;
ALTER TABLE metric_samples DROP COLUMN canceled;
