// The Streams view: a task's blocked streams — streams whose head (their one unfinished
// execution that is not `blocked`: queued, scheduled for a retry, or running) has work
// waiting behind it — oldest head first, so the stream blocked longest leads.
//
// Bounded: the heads come from executions_stream_head_idx (task, id), one entry per live
// stream, in id order after the cursor, at most `scan` of them per page; per head one
// probe of executions_stream_idx (task, stream_key, id) counts the executions behind it
// up to `countCap` and finds the first of them. Streams with nothing behind their head are
// skipped; when `scan` heads yield fewer than `limit` blocked streams, the page ends
// early and `scannedTo` says where the next page starts.
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
  /** The id of the last head read, when the scan stopped at `scan` heads. */
  scannedTo: number | null;
}

export async function readBlockedStreams(
  db: Db,
  task: string,
  opts: { afterId: number | null; limit: number; scan: number; countCap: number },
): Promise<BlockedStreamsPage> {
  const r = await db.query<{ scanned: number; last_id: number | null; rows: BlockedStreamRow[] | null }>(
    `WITH heads AS (
       SELECT e.id, e.stream_key, e.state, e.attempts, e.run_at, e.enqueued_at, e.started_at, e.lease_expires_at, e.last_error
       FROM executions e
       WHERE e.task = $1 AND e.stream_key IS NOT NULL AND e.state IN ('queued', 'running') AND ($2::bigint IS NULL OR e.id > $2)
       ORDER BY e.id
       LIMIT $4
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
       WHERE b.n > 0
       ORDER BY h.id
       LIMIT $3
     )
     SELECT (SELECT count(*) FROM heads)::int AS scanned,
            (SELECT max(id) FROM heads) AS last_id,
            (SELECT json_agg(json_build_object(
               'stream_key', stream_key, 'head_id', id, 'head_state', state, 'attempts', attempts, 'run_at', run_at,
               'enqueued_at', enqueued_at, 'started_at', started_at, 'lease_expires_at', lease_expires_at, 'last_error', last_error,
               'behind', n, 'first_behind_id', first_id, 'first_behind_enqueued_at', first_enqueued_at) ORDER BY id)
             FROM blocked) AS rows`,
    [task, opts.afterId, opts.limit, opts.scan, opts.countCap],
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
  return { rows, scanned: row.scanned, scannedTo: row.scanned >= opts.scan ? row.last_id : null };
}
