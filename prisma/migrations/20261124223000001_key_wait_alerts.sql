-- Per-key policies (issue 16, the third precedence level): a group key with its own wait
-- lines raises keyWait when its oldest due execution waits past them.
ALTER TABLE alerts DROP CONSTRAINT alerts_rule_check;
ALTER TABLE alerts ADD CONSTRAINT alerts_rule_check CHECK (rule IN (
  'depth', 'imbalance', 'retryRate', 'dlqRate', 'p99LatencyMs', 'hotPartition', 'hotKey',
  'shedPerSecond', 'rejectRate', 'waitP99Ms',
  'coordinatorStale', 'unownedPartitions', 'configBehind', 'maintenanceFailing', 'reconcileRepairs',
  'dlqNearFull', 'dbConnections', 'vacuumHorizon', 'deadTuples',
  'circuitOpen', 'keyWait'));
