-- Up Migration
-- The per-task Keys and Streams views (docs/operators.md § Keys and streams).
--
-- 1. Finished executions per group key per minute. Nothing recorded them: group_slots has
--    the live counts (in_flight, queued) and metric_top_keys samples the top ten keys'
--    counts, neither says how fast a key drains. The claim and finish must not pay for it
--    (their group_slots upserts stay as they are), so the `key-finishes` maintenance
--    service (server/db/record-key-finishes.ts) reads, every 10 s, the executions that
--    finished since its cursor through executions_finished_idx — work proportional to the
--    throughput of that interval, never to the size of the table — and adds their keys'
--    counts into per-minute buckets here. The Keys view then reads, per key on its page,
--    the last complete minute by primary key. Buckets older than 15 minutes are pruned.
CREATE TABLE group_key_finishes (
  task        text NOT NULL,
  group_name  text NOT NULL,
  group_key   text NOT NULL,
  minute      timestamptz NOT NULL,
  finished    integer NOT NULL CHECK (finished >= 0),
  PRIMARY KEY (task, group_name, group_key, minute)
);
-- Pruning by age.
CREATE INDEX group_key_finishes_minute_idx ON group_key_finishes (minute);

-- Every execution finished before scanned_until has been counted (one row).
CREATE TABLE group_key_finish_cursor (
  id             smallint PRIMARY KEY CHECK (id = 1),
  scanned_until  timestamptz NOT NULL
);

-- 2. Stream heads. A stream has at most one unfinished execution that is not `blocked`:
--    its head, `queued` (possibly scheduled for a retry) or `running`; everything behind
--    it is `blocked`. The Streams view lists the blocked streams of a task, longest
--    blocked first (oldest head first), which executions_stream_idx (task, stream_key, id)
--    cannot give without visiting every stream. This index holds the heads only (one
--    entry per live stream), in id order per task. Its cost on the hot path: a stream
--    execution's queued and running versions each add one entry (the executions updates
--    that move `state` are not HOT anyway: executions_claim_idx names it).
CREATE INDEX executions_stream_head_idx ON executions (task, id)
  WHERE stream_key IS NOT NULL AND state IN ('queued', 'running');

-- Down Migration
DROP INDEX executions_stream_head_idx;
DROP TABLE group_key_finish_cursor;
DROP TABLE group_key_finishes;
