-- Rate-held executions (issue #19, "charts of executions held by rate limits per task"):
-- the metrics sampler's gauge of the executions waiting because a rate limit has no slot
-- for them at the sample instant (server/db/write-metric-samples.ts; the definition is
-- server/db/read-rate-held.ts and docs/operators.md "Rate-held executions").
--
-- metric_samples.rate_held: written on the task total (partition = -1) only, 0 for a task
-- without a rate; NULL on the per-partition rows (group_slots and rate_state are per task,
-- not per partition) and on the samples written before this migration (not measured).
ALTER TABLE metric_samples ADD COLUMN rate_held bigint;
-- The roll-ups keep its maximum per bucket, as depth_max (NULL where no sample had one).
ALTER TABLE metric_rollups ADD COLUMN rate_held_max bigint;
-- The charts' series carry the task total's maximum.
ALTER TABLE metric_rollup_series ADD COLUMN rate_held bigint;
