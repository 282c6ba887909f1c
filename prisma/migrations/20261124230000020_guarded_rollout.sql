-- Guarded rollout (issue 20): a config version applied "with guard" bakes for a while;
-- the control plane's alert evaluator watches its tasks' alerts and, if the guard's rule
-- fires during the bake, reverts those tasks to the version before by itself
-- (server/services/guarded-rollout.ts, core/guarded-rollout.ts). Kept here, not in a
-- process, so a control-plane restart mid-bake picks the watch up where it was.
CREATE TABLE config_guards (
  id                bigserial PRIMARY KEY,
  -- The guarded version and the one its tasks go back to.
  version           bigint NOT NULL UNIQUE,
  previous_version  bigint NOT NULL,
  -- The tasks the version changed (and that existed before it): what is watched and reverted.
  tasks             text[] NOT NULL,
  rule_severity     text NOT NULL DEFAULT 'critical' CHECK (rule_severity IN ('warning', 'critical')),
  -- An alert rule name; NULL = any rule of the tasks.
  rule_name         text,
  bake_ms           integer NOT NULL CHECK (bake_ms > 0),
  started_at        timestamptz NOT NULL,
  bake_until        timestamptz NOT NULL,
  status            text NOT NULL DEFAULT 'baking' CHECK (status IN ('baking', 'promoted', 'rolled_back', 'aborted', 'superseded')),
  created_by        text NOT NULL,
  ended_at          timestamptz,
  ended_by          text,
  reason            text,
  -- The alert event that tripped it (alert id, rule, values), for rolled_back.
  evidence          jsonb,
  -- The version the rollback made.
  rollback_version  bigint
);
-- The watcher reads the baking ones every tick.
CREATE INDEX config_guards_baking_idx ON config_guards (version) WHERE status = 'baking';
