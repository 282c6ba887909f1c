-- Rate limits (issue #19): N executions per interval with a burst, per task and per group
-- key, enforced inside the claim (server/db/sql/functions/sluice_claim_rows.sql; the rule
-- and its tables: server/core/rate-limit.ts).
--
-- task_runtime.rate: what the claim reads of the task's own rate and cost source,
-- written by the config apply (server/db/sync-task-runtime.ts) beside `groups` (which
-- now carries each group's `rate` too):
--   {"task": {"limit": 100, "per": 60000, "burst": 5}, "cost": ["weight"]}   ('{}' = none)
ALTER TABLE task_runtime ADD COLUMN rate jsonb NOT NULL DEFAULT '{}';

-- The GCRA state: one row per rate-limited scope that started work recently —
-- (task, '', '') for the task's own rate, (task, group, key) for a group key's. tat_ms is
-- the theoretical arrival time of the next unit of cost (epoch ms, double precision: the
-- emission interval per / limit is rarely a whole number of ms). Written only by the claim,
-- under the task_runtime lock, after group_slots (lock order: task_runtime → executions →
-- partition_stats → group_slots → rate_state, each sorted). A row whose tat_ms is in the
-- past means exactly what an absent row means (the scope is idle and full), so slot GC
-- (server/coordinator/slot-gc.ts) deletes those (unless rows are still parked on the key): the table holds the scopes that started
-- work within about one burst window, whatever the number of keys ever seen. No index on
-- tat_ms: every claim of a rate-limited task rewrites its rows (kept HOT, fillfactor 50).
CREATE TABLE rate_state (
  task        text NOT NULL,
  group_name  text NOT NULL,
  group_key   text NOT NULL,
  tat_ms      double precision NOT NULL,
  -- set while rows of the key wait outside the claim index (executions.waiting_on =
  -- 'rate:<group>=<key>'): when the claim next releases some (its next slot); NULL = none
  parked_until double precision,
  updated_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (task, group_name, group_key)
) WITH (fillfactor = 50);
