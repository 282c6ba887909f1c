-- Weighted fair share (issue #19): a per-key entry point into the backlog.
--
-- executions.fair_key: for a task with `order: fair`, the row's key of the fair group as it
-- appears in group_keys ('tenant=acme'); NULL otherwise. Written at insert from
-- task_runtime.groups (server/db/enqueue-executions.ts) and rewritten for the task's
-- queued and blocked rows when a config apply changes its fair group
-- (server/db/sync-task-runtime.ts).
--
-- executions_fair_idx: a fair pass of the claim (server/db/sql/functions/sluice_claim_rows.sql)
-- reads each below-share key's oldest claimable rows per owned partition directly, one
-- index probe per (key, partition), instead of scanning the partition's head past the rows
-- of a flooding key (W6: the flood's rows piled at the head, docs/benchmarks.md § W6).
ALTER TABLE executions ADD COLUMN fair_key text;

CREATE INDEX executions_fair_idx ON executions (task, partition, fair_key, claim_at, id)
  WHERE state = 'queued' AND waiting_on IS NULL AND fair_key IS NOT NULL;
