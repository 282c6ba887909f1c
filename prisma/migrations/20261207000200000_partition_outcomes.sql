-- Up Migration
-- partition_outcomes: a partition's finish-only counters — the totals by outcome and the three
-- latency histograms (enqueue→finish, wait, run) — in a row of their own, out of
-- partition_stats (issue #18, the held snapshot).
--
-- Why: while another session holds a snapshot, every read, lock or update of a counter row
-- walks all its versions since. A cycle locks its partitions' partition_stats rows, the
-- finish updates them, the claim reads their floors and updates them: four walks a cycle,
-- 417 + 512 + 480 + 543 buffers and 6.3 of the ~17 ms a cycle held the task lock, 30 s into
-- bench:soak's hold (docs/benchmarks.md, twenty-first session). The row was ~700 bytes once
-- the histograms filled (3 × 17 bigints), ~11 versions a page; the enqueue, the claim and
-- the finish each add a version. Without the histograms and totals it is ~220 bytes, and
-- the finish-only columns here get a version only from a finish.
--
-- Writers: the finish (sluice_finish_rows), a cancel (canceled_total), a drained task's
-- backlog (dead_total): each holds the partition's partition_stats row lock first, so this
-- row takes no place of its own in the lock order. The row is created with its
-- partition_stats row (trigger below) and goes with it.
--
-- Rolling upgrade: partition_stats keeps the moved columns for this release (the previous
-- release's functions write them until the function step replaces them; its metrics
-- sampler reads them). They are copied here, then the histograms there are emptied (they
-- were most of the row's width): a previous release's sampler, until it is replaced, reads
-- totals frozen at this migration and empty histograms (its samples show no finishes and
-- no latency), and this release's first sample after one of its samples counts the
-- histograms' whole history once. The next release's migration drops the columns.
CREATE TABLE partition_outcomes (
  task            text NOT NULL,
  partition       integer NOT NULL,
  processed_total bigint NOT NULL DEFAULT 0,
  failed_total    bigint NOT NULL DEFAULT 0,
  retried_total   bigint NOT NULL DEFAULT 0,
  dead_total      bigint NOT NULL DEFAULT 0,
  canceled_total  bigint NOT NULL DEFAULT 0,
  lat_hist        bigint[] NOT NULL DEFAULT '{}',
  wait_hist       bigint[] NOT NULL DEFAULT '{}',
  run_hist        bigint[] NOT NULL DEFAULT '{}',
  PRIMARY KEY (task, partition),
  FOREIGN KEY (task, partition) REFERENCES partition_stats (task, partition) ON DELETE CASCADE
);
ALTER TABLE partition_outcomes SET (autovacuum_vacuum_cost_delay = 0);
INSERT INTO partition_outcomes (task, partition, processed_total, failed_total, retried_total, dead_total, canceled_total, lat_hist, wait_hist, run_hist)
SELECT task, partition, processed_total, failed_total, retried_total, dead_total, canceled_total, lat_hist, wait_hist, run_hist
FROM partition_stats;
UPDATE partition_stats SET lat_hist = '{}', wait_hist = '{}', run_hist = '{}';

-- The trigger's function is needed now; its file (server/db/sql/functions/
-- sluice_partition_outcomes_init.sql) holds the same text, re-applied once by the function step.
CREATE OR REPLACE FUNCTION public.sluice_partition_outcomes_init()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  INSERT INTO partition_outcomes (task, partition, lat_hist) VALUES (NEW.task, NEW.partition, array_fill(0::bigint, ARRAY[17]))
  ON CONFLICT (task, partition) DO NOTHING;
  RETURN NULL;
END
$function$;
CREATE TRIGGER partition_outcomes_init AFTER INSERT ON partition_stats
  FOR EACH ROW EXECUTE FUNCTION sluice_partition_outcomes_init();

-- Down Migration
DROP TRIGGER IF EXISTS partition_outcomes_init ON partition_stats;
DROP FUNCTION IF EXISTS sluice_partition_outcomes_init();
UPDATE partition_stats ps SET processed_total = o.processed_total, failed_total = o.failed_total, retried_total = o.retried_total,
  dead_total = o.dead_total, canceled_total = o.canceled_total, lat_hist = o.lat_hist, wait_hist = o.wait_hist, run_hist = o.run_hist
FROM partition_outcomes o WHERE o.task = ps.task AND o.partition = ps.partition;
DROP TABLE IF EXISTS partition_outcomes;
