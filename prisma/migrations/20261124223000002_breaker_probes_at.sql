-- Issue 23: when a half-open breaker last let probes through, so a probe that gives no
-- outcome (released by a shutdown or a cancel, or its coordinator died) has its slot let
-- through again after the probe timeout (core/circuit-breaker.ts advance) instead of
-- holding the breaker half-open for good.
ALTER TABLE task_breakers ADD COLUMN probes_at timestamptz;
