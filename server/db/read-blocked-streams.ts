// The Streams view: a task's blocked streams — streams whose head (their one unfinished
// execution that is not `blocked`: queued, scheduled for a retry, or running) has work
// waiting behind it — longest blocked first.
//
// "Blocked for" is defined as the wait of the oldest execution now held behind the head:
// now − enqueued_at of the first execution after the head. That is how long work in this
// stream has been held up, whatever the head is doing (a retry loop, a slow run, a head
// that was itself promoted from behind an earlier one). Ids come from one sequence in
// insert order, so "first behind enqueued earliest" is "lowest first-behind id": the rank
// and the keyset cursor are that id (ties impossible, one id per execution).
//
// Bounded: the heads come from executions_stream_head_idx (task, id), one entry per live
// stream, oldest first, at most `scan` of them; per head one probe of
// executions_stream_idx (task, stream_key, id) counts the executions behind it up to
// `countCap` and finds the first of them. The first execution behind a head always has a
// higher id than the head, so when the scan stops at `scan` heads, every blocked stream
// whose first-behind id is below the last head read is ranked exactly (no unread head can
// come before it); the page stops there and `truncated` says the rest of the task's
// streams were not read.
import type { Db } from './pool';

export interface BlockedStreamRow {
  stream_key: string;
  head_id: number;
  head_state: 'queued' | 'running';
  attempts: number;
  run_at: Date;
  enqueued_at: Date;
  started_at: Date | null;
  lease_expires_at: Date | null;
  last_error: string | null;
  behind: number;
  first_behind_id: number;
  first_behind_enqueued_at: Date;
}

export interface BlockedStreamsPage {
  rows: BlockedStreamRow[];
  /** Heads read (≤ scan). */
  scanned: number;
  /** The scan stopped at `scan` heads: streams with a newer head were not read. */
  truncated: boolean;
}

export async function readBlockedStreams(
  db: Db,
  task: string,
  opts: { afterFirstBehindId: number | null; limit: number; scan: number; countCap: number },
): Promise<BlockedStreamsPage> {
  const r = await db.query<{ scanned: number; truncated: boolean; rows: BlockedStreamRow[] | null }>(
    `WITH heads AS (
       SELECT e.id, e.stream_key, e.state, e.attempts, e.run_at, e.enqueued_at, e.started_at, e.lease_expires_at, e.last_error
       FROM executions e
       WHERE e.task = $1 AND e.stream_key IS NOT NULL AND e.state IN ('queued', 'running')
       ORDER BY e.id
       LIMIT $4
     ),
     bound AS (
       -- Exact up to here: an unread head (id > the last one read) has its first-behind above it.
       SELECT CASE WHEN count(*) >= $4 THEN max(id) END AS below FROM heads
     ),
     blocked AS (
       SELECT h.*, b.n, b.first_id, b.first_enqueued_at
       FROM heads h CROSS JOIN LATERAL (
         SELECT count(*)::int AS n, min(x.id) AS first_id, min(x.enqueued_at) AS first_enqueued_at FROM (
           SELECT x.id, x.enqueued_at FROM executions x
           WHERE x.task = $1 AND x.stream_key = h.stream_key AND x.state IN ('blocked', 'queued', 'running') AND x.id > h.id
           ORDER BY x.id LIMIT $5
         ) x
       ) b
       WHERE b.n > 0 AND ($2::bigint IS NULL OR b.first_id > $2)
         AND b.first_id < coalesce((SELECT below FROM bound), 'Infinity'::numeric)
       ORDER BY b.first_id
       LIMIT $3
     )
     SELECT (SELECT count(*) FROM heads)::int AS scanned,
            (SELECT below IS NOT NULL FROM bound) AS truncated,
            (SELECT json_agg(json_build_object(
               'stream_key', stream_key, 'head_id', id, 'head_state', state, 'attempts', attempts, 'run_at', run_at,
               'enqueued_at', enqueued_at, 'started_at', started_at, 'lease_expires_at', lease_expires_at, 'last_error', last_error,
               'behind', n, 'first_behind_id', first_id, 'first_behind_enqueued_at', first_enqueued_at) ORDER BY first_id)
             FROM blocked) AS rows`,
    [task, opts.afterFirstBehindId, opts.limit, opts.scan, opts.countCap],
  );
  const row = r.rows[0]!;
  const rows = (row.rows ?? []).map((x) => ({
    ...x,
    head_id: Number(x.head_id),
    first_behind_id: Number(x.first_behind_id),
    run_at: new Date(x.run_at),
    enqueued_at: new Date(x.enqueued_at),
    started_at: x.started_at ? new Date(x.started_at) : null,
    lease_expires_at: x.lease_expires_at ? new Date(x.lease_expires_at) : null,
    first_behind_enqueued_at: new Date(x.first_behind_enqueued_at),
  }));
  return { rows, scanned: row.scanned, truncated: row.truncated };
}
