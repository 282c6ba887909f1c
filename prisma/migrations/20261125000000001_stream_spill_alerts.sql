-- Health (issue 16): a stream whose head has held the work behind it past the lines raises
-- streamBlocked (seed 002 troubleshooting: "is an earlier message blocking this message?");
-- executions parked by the spill policy past the lines raise spillBacklog.
ALTER TABLE alerts DROP CONSTRAINT alerts_rule_check;
ALTER TABLE alerts ADD CONSTRAINT alerts_rule_check CHECK (rule IN (
  'depth', 'imbalance', 'retryRate', 'dlqRate', 'p99LatencyMs', 'hotPartition', 'hotKey',
  'shedPerSecond', 'rejectRate', 'waitP99Ms',
  'coordinatorStale', 'unownedPartitions', 'configBehind', 'maintenanceFailing', 'reconcileRepairs',
  'dlqNearFull', 'dbConnections', 'vacuumHorizon', 'deadTuples',
  'circuitOpen', 'keyWait', 'streamBlocked', 'spillBacklog'));
