-- Slot deltas (issue #23, W7): the group_slots counter moves of claims and finishes leave
-- the task lock. Until now every cycle of a grouped task ended in one sorted upsert of the
-- group_slots rows of every key it finished or claimed — ~860 rows per 100-job cycle in W7
-- (10 keys per execution), 4.5 of the ~13.6 ms the cycle holds the task lock (private
-- PG 15, pg_stat_statements, 2026-12-02; docs/benchmarks.md, fourteenth session). Nothing
-- under the lock reads those counters for admission: the claim counts keys in use from the
-- running rows, and the release of waiting rows now does too (sluice_release_rows). So the
-- claim and the finish append what they moved here, one row per kind of move, in their own
-- transaction (no lock on any existing row), and sluice_fold_slots adds the rows into
-- group_slots afterwards, outside the task lock: the coordinator that logged them a moment
-- later (server/coordinator/slot-folder.ts), the slot-fold maintenance service for what a
-- dead member left, and the reconciler before it counts.
--
-- A row: every key in `keys` (repeats allowed: one entry per execution and key) moves by
-- (d_in_flight, d_queued): a claim (+1, −1), a finish (−1, 0), a retry or release (−1, +1).
-- group_slots + the rows not yet folded = the true counts, at every commit; a fold deletes
-- the rows it adds in the same transaction, so each is added exactly once.
CREATE TABLE slot_deltas (
  id          bigserial PRIMARY KEY,
  task        text NOT NULL,
  keys        text[] NOT NULL,
  d_in_flight integer NOT NULL,
  d_queued    integer NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);
-- The fold takes a task's rows oldest first.
CREATE INDEX slot_deltas_task_idx ON slot_deltas (task, id);
-- A queue of a few rows at a time, inserted and deleted at the cycle rate: vacuumed often.
ALTER TABLE slot_deltas SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000,
  autovacuum_vacuum_cost_delay = 0, autovacuum_analyze_scale_factor = 0.5);
-- A row holds one key per (execution, key) moved: ~1,000 short strings for a 100-job W7
-- cycle, ~12 KB, which Postgres compresses before it stores it. lz4 instead of the default
-- pglz: 38–43 µs per insert against 161–167 µs (psql, 2,000 inserts each, PG 15.19,
-- 2026-12-02), and the claim and the finish each insert one under the task lock. Servers
-- built without lz4 (the embedded Postgres of `npm start`) keep pglz.
DO $$
BEGIN
  ALTER TABLE slot_deltas ALTER COLUMN keys SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  NULL;
END
$$;

-- What the console reads: group_slots plus the moves not yet folded, so a key's running and
-- queued counts are right at every commit, whoever folds and when (a member that logged
-- them and died leaves them to the slot-fold service, seconds later). Quals on task, group
-- or key go into both arms (grouping columns); the unfolded rows are few (a member folds its
-- own every slotFoldMs). The engine itself never reads per-key counters to decide what runs.
CREATE VIEW group_slot_counts AS
SELECT x.task, x.group_name, x.group_key, sum(x.in_flight)::integer AS in_flight, sum(x.queued)::integer AS queued,
       max(x.last_used_at) AS last_used_at
FROM (
  SELECT gs.task, gs.group_name, gs.group_key, gs.in_flight, gs.queued, gs.last_used_at FROM group_slots gs
  UNION ALL
  SELECT d.task, split_part(k.gk, '=', 1), substr(k.gk, strpos(k.gk, '=') + 1), d.d_in_flight, d.d_queued, d.created_at
  FROM slot_deltas d CROSS JOIN LATERAL unnest(d.keys) AS k(gk)
) x
GROUP BY x.task, x.group_name, x.group_key;
