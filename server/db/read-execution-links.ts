// What the execution detail shows around one execution, each by an index probe:
//   owner      partition_owners (task, partition) PK + coordinators PK
//   dead       dead_letters.execution_id (unique)
//   origin     the dead letter a replay came from (its id is in the idempotency key,
//              server/core/replay-key.ts) + the replay job item (dlq_replay_items_dead_letter_idx)
//   neighbours the previous / next execution of its stream: unfinished ones through
//              executions_stream_idx; finished rows have no stream index, so the search
//              for those is bounded to `window` ids on either side (primary-key range)
import type { Db } from './pool';

export interface PartitionOwnerRow {
  owner: string | null;
  name: string | null;
  lastHeartbeatAt: Date | null;
  stopped: boolean;
  draining: boolean;
  ageMs: number | null;
  since: Date | null;
}

export async function readPartitionOwner(db: Db, task: string, partition: number): Promise<PartitionOwnerRow | null> {
  const r = await db.query<PartitionOwnerRow>(
    `SELECT po.owner, c.name, c.last_heartbeat_at AS "lastHeartbeatAt", c.stopped_at IS NOT NULL AS stopped,
            coalesce(c.draining, false) AS draining, po.since,
            (extract(epoch FROM now() - c.last_heartbeat_at) * 1000)::bigint AS "ageMs"
       FROM partition_owners po LEFT JOIN coordinators c ON c.id = po.owner
      WHERE po.task = $1 AND po.partition = $2`,
    [task, partition],
  );
  return r.rows[0] ?? null;
}

export interface DeadLetterLinkRow {
  id: number;
  deadAt: Date;
  replayedAt: Date | null;
  replayExecutionId: number | null;
}

export async function readDeadLetterOf(db: Db, executionId: number): Promise<DeadLetterLinkRow | null> {
  const r = await db.query<DeadLetterLinkRow>(
    `SELECT id, dead_at AS "deadAt", replayed_at AS "replayedAt", replay_execution_id AS "replayExecutionId"
       FROM dead_letters WHERE execution_id = $1`,
    [executionId],
  );
  return r.rows[0] ?? null;
}

export interface ReplayOriginRow {
  deadLetterId: number;
  /** null when the dead letter was purged since */
  originalExecutionId: number | null;
  task: string | null;
  deadAt: Date | null;
  /** the replay job that enqueued this execution, when one recorded it */
  jobId: number | null;
}

export async function readReplayOrigin(db: Db, deadLetterId: number, executionId: number): Promise<ReplayOriginRow> {
  const r = await db.query<ReplayOriginRow>(
    `SELECT $1::bigint AS "deadLetterId", d.execution_id AS "originalExecutionId", d.task, d.dead_at AS "deadAt",
            (SELECT i.job_id FROM dlq_replay_items i WHERE i.dead_letter_id = $1 AND i.execution_id = $2
              ORDER BY i.job_id DESC LIMIT 1) AS "jobId"
       FROM (SELECT 1) one LEFT JOIN dead_letters d ON d.id = $1`,
    [deadLetterId, executionId],
  );
  return r.rows[0]!;
}

export interface StreamNeighbourRow {
  id: number;
  state: string;
}

export async function readStreamNeighbours(
  db: Db,
  task: string,
  streamKey: string,
  id: number,
  window: number,
): Promise<{ previous: StreamNeighbourRow | null; next: StreamNeighbourRow | null }> {
  const r = await db.query<{ dir: 'previous' | 'next'; id: number; state: string }>(
    `(SELECT 'previous' AS dir, e.id, e.state FROM executions e
       WHERE e.task = $1 AND e.stream_key = $2 AND e.id < $3 AND e.id >= $3 - $4::bigint
       ORDER BY e.id DESC LIMIT 1)
     UNION ALL
     (SELECT 'next', e.id, e.state FROM executions e
       WHERE e.task = $1 AND e.stream_key = $2 AND e.id > $3 AND e.id <= $3 + $4::bigint
       ORDER BY e.id LIMIT 1)
     UNION ALL
     (SELECT 'next', o.id, 'spilled' FROM overflow o
       WHERE o.task = $1 AND o.stream_key = $2 AND o.id > $3 ORDER BY o.id LIMIT 1)`,
    [task, streamKey, id, window],
  );
  const previous = r.rows.find((x) => x.dir === 'previous') ?? null;
  const next = r.rows.filter((x) => x.dir === 'next').sort((a, b) => a.id - b.id)[0] ?? null;
  return { previous: previous && { id: previous.id, state: previous.state }, next: next && { id: next.id, state: next.state } };
}
