-- Priorities (issue #19). Every execution carries a priority (an integer, higher first)
-- and the claim ranks a task's claimable rows by
--
--     claim_at = run_at − priority × agingMs        (then id)
--
-- instead of (run_at, id). agingMs is the task's `priority.agingMs` at enqueue (default
-- 60 s, server/core/priority.ts): one priority level is worth agingMs of waiting. Read as
-- aging: a row's effective priority grows by one every agingMs it waits, so a row of
-- priority p that has waited w ranks with a fresh row of priority p + w / agingMs, and a
-- low-priority row is never starved: after (Δpriority × agingMs) it is ahead of every
-- higher-priority row enqueued later. With every priority 0 (the default) the order is
-- exactly the old (run_at, id).
--
-- Why a stored column and not an ORDER BY expression: the claim reads the head of each
-- partition in index order and stops at its window (never sorting the backlog); the key
-- must be an index column. `priority_lead_ms` = priority × agingMs is fixed at enqueue
-- (a later agingMs applies to new executions), so every place that moves run_at (a retry's
-- backoff, a stream promotion, "run now", a replay) keeps the lead without knowing about
-- it: claim_at is GENERATED from the two. It is a `timestamp` (UTC) rather than a
-- timestamptz because a generated column needs an immutable expression and
-- timestamptz − interval is only stable; `AT TIME ZONE 'UTC'` (immutable) then
-- timestamp − interval (immutable) gives the same instant, written in UTC.
--
-- Eligibility stays `run_at <= now()` (a filter on the index scan): a delayed row with a
-- positive priority sorts ahead of its run_at and is read and skipped until it is due —
-- bounded by the rows due within (max priority × agingMs) of now.

ALTER TABLE executions
  ADD COLUMN priority integer NOT NULL DEFAULT 0,
  ADD COLUMN priority_lead_ms bigint NOT NULL DEFAULT 0,
  ADD COLUMN claim_at timestamp GENERATED ALWAYS AS ((run_at AT TIME ZONE 'UTC') - priority_lead_ms * interval '1 millisecond') STORED;

-- Spilled rows keep theirs until drained back.
ALTER TABLE overflow
  ADD COLUMN priority integer NOT NULL DEFAULT 0,
  ADD COLUMN priority_lead_ms bigint NOT NULL DEFAULT 0;

DROP INDEX executions_claim_idx;
-- The claim: per owned partition, claimable rows in (claim_at, id) order.
CREATE INDEX executions_claim_idx ON executions (task, partition, claim_at, id)
  WHERE state = 'queued' AND waiting_on IS NULL;
DROP INDEX executions_waiting_idx;
-- Release: the next rows (claim order) waiting on one key of a task.
CREATE INDEX executions_waiting_idx ON executions (task, waiting_on, claim_at, id)
  WHERE state = 'queued' AND waiting_on IS NOT NULL;
