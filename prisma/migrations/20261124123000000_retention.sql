-- Up Migration
-- Every table bounded (docs/operations.md § Retention; the rule per table is in
-- server/core/retention-policy.ts, and test/integration/retention-coverage.test.ts fails on
-- a table that has none).
--
-- 1. maintenance_runs is the one lock of the maintenance runner (server/db/maintenance-runner.ts):
--    a row lock (FOR UPDATE SKIP LOCKED) for services that run in one transaction, and a
--    lease for jobs that commit in steps (DLQ replay, roll-ups, retention).
ALTER TABLE maintenance_runs ADD COLUMN lease_owner text, ADD COLUMN lease_until timestamptz;

-- 2. The idempotency window: a finished execution's key dedupes for SLUICE_IDEMPOTENCY_WINDOW_HOURS
--    after it finished; retention then clears the key of rows kept longer (dead rows live as
--    long as their dead letter). Only keyed finished rows are in this index, so the pass reads
--    just the keys it clears.
CREATE INDEX executions_keyed_finished_idx ON executions (finished_at)
  WHERE idempotency_key IS NOT NULL AND state IN ('succeeded', 'dead', 'canceled');

-- 3. Deletions by age, oldest first, in small batches: an index on the age column.
CREATE INDEX partition_owner_log_at_idx ON partition_owner_log (at);
CREATE INDEX webhook_deliveries_created_idx ON webhook_deliveries (created_at) WHERE status IN ('delivered', 'failed');
CREATE INDEX alerts_resolved_idx ON alerts (resolved_at) WHERE status = 'resolved';
CREATE INDEX dlq_replay_jobs_finished_idx ON dlq_replay_jobs (finished_at) WHERE finished_at IS NOT NULL;

-- 4. Autovacuum that keeps up with churn (docs/benchmarks.md § Soak). Every execution leaves
--    two or three dead versions (queued → running → finished) and retention deletes it:
--    at a few hundred jobs/s that is ~100k dead tuples a minute. The defaults (vacuum at 20%
--    of the table, cost-limited with 2 ms naps) let the dead tuples in the soak reach 3×
--    the live ones before the snapshot was even held. Vacuum executions at 2% + 5000 rows,
--    unthrottled; the small, hot counter tables likewise.
ALTER TABLE executions SET (autovacuum_vacuum_scale_factor = 0.02, autovacuum_vacuum_threshold = 5000,
  autovacuum_vacuum_cost_delay = 0, autovacuum_analyze_scale_factor = 0.05);
ALTER TABLE execution_attempts SET (autovacuum_vacuum_scale_factor = 0.05, autovacuum_vacuum_cost_delay = 0);
ALTER TABLE group_slots SET (autovacuum_vacuum_scale_factor = 0.05, autovacuum_vacuum_cost_delay = 0);
ALTER TABLE partition_stats SET (autovacuum_vacuum_cost_delay = 0);
ALTER TABLE task_runtime SET (autovacuum_vacuum_cost_delay = 0);

-- Down Migration
ALTER TABLE task_runtime RESET (autovacuum_vacuum_cost_delay);
ALTER TABLE partition_stats RESET (autovacuum_vacuum_cost_delay);
ALTER TABLE group_slots RESET (autovacuum_vacuum_scale_factor, autovacuum_vacuum_cost_delay);
ALTER TABLE execution_attempts RESET (autovacuum_vacuum_scale_factor, autovacuum_vacuum_cost_delay);
ALTER TABLE executions RESET (autovacuum_vacuum_scale_factor, autovacuum_vacuum_threshold, autovacuum_vacuum_cost_delay, autovacuum_analyze_scale_factor);
DROP INDEX dlq_replay_jobs_finished_idx;
DROP INDEX alerts_resolved_idx;
DROP INDEX webhook_deliveries_created_idx;
DROP INDEX partition_owner_log_at_idx;
DROP INDEX executions_keyed_finished_idx;
ALTER TABLE maintenance_runs DROP COLUMN lease_until, DROP COLUMN lease_owner;
