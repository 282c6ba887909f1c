// One batch of a replay job.
//   nextReplayItems: the job's next pending items in seq (original execution id) order
//     through dlq_replay_items_pending_idx, joined to their dead letters (LEFT JOIN: a
//     purged dead letter comes back as gone) — payload, groups and stream for enqueue.
//   recordReplayBatch: after the executions were enqueued (services/enqueue.ts, its own
//     transaction), one transaction that
//       1. fences on the job lease (UPDATE … WHERE lease_owner = me; 0 rows → the lease
//          was taken over; roll back and stop — the new holder re-enqueues the same items
//          with the same idempotency keys, so it gets the same executions, not new ones);
//       2. marks the dead letters replayed WHERE replay_execution_id IS NULL — exactly one
//          job gets the credit for a dead letter, whoever else raced for it;
//       3. sets each item's outcome; 4. moves the job's counters.
//   parkedAttempts: for "keep attempts" replays, the executions were enqueued parked a
//     minute ahead (so no coordinator can claim them yet); this sets their attempts and
//     releases them (run_at = now()) in one statement.
import { withTransaction, type Db } from './pool';
import { lockTask } from './task-lock';

export interface ReplayItemRow {
  deadLetterId: number;
  seq: number;
  gone: boolean;
  task: string | null;
  payload: unknown;
  groups: Record<string, string> | null;
  streamKey: string | null;
  attempts: number | null;
  replayExecutionId: number | null;
}

export async function nextReplayItems(db: Db, jobId: number, limit: number): Promise<ReplayItemRow[]> {
  const r = await db.query<ReplayItemRow>(
    `SELECT i.dead_letter_id AS "deadLetterId", i.seq, d.id IS NULL AS gone, d.task, d.payload, d.groups,
            d.stream_key AS "streamKey", d.attempts, d.replay_execution_id AS "replayExecutionId"
       FROM dlq_replay_items i LEFT JOIN dead_letters d ON d.id = i.dead_letter_id
      WHERE i.job_id = $1 AND i.state = 'pending'
      ORDER BY i.seq, i.dead_letter_id
      LIMIT $2`,
    [jobId, limit],
  );
  return r.rows;
}

export type ReplayOutcome =
  | { deadLetterId: number; kind: 'enqueued'; executionId: number }
  | { deadLetterId: number; kind: 'skipped'; executionId: number | null; error: string }
  | { deadLetterId: number; kind: 'failed'; error: string };

export interface RecordedBatch {
  replayed: number;
  skipped: number;
  failed: number;
}

/** Must run inside a transaction. Returns null when the lease is no longer `owner`'s. */
export async function recordReplayBatch(db: Db, jobId: number, owner: string, outcomes: readonly ReplayOutcome[]): Promise<RecordedBatch | null> {
  const fence = await db.query(`SELECT 1 FROM dlq_replay_jobs WHERE id = $1 AND lease_owner = $2 FOR UPDATE`, [jobId, owner]);
  if (fence.rowCount === 0) return null;

  const enq = outcomes.filter((o): o is Extract<ReplayOutcome, { kind: 'enqueued' }> => o.kind === 'enqueued');
  let credited = new Set<number>();
  if (enq.length > 0) {
    const r = await db.query<{ id: number }>(
      `UPDATE dead_letters d SET replayed_at = now(), replay_execution_id = x.exec
         FROM unnest($1::bigint[], $2::bigint[]) AS x(id, exec)
        WHERE d.id = x.id AND d.replay_execution_id IS NULL
       RETURNING d.id`,
      [enq.map((o) => o.deadLetterId), enq.map((o) => o.executionId)],
    );
    credited = new Set(r.rows.map((x) => x.id));
  }
  const rows = outcomes.map((o) => {
    if (o.kind === 'enqueued') {
      return credited.has(o.deadLetterId)
        ? { id: o.deadLetterId, state: 'replayed', exec: o.executionId, error: null }
        : { id: o.deadLetterId, state: 'skipped', exec: o.executionId, error: 'already replayed by another request' };
    }
    if (o.kind === 'skipped') return { id: o.deadLetterId, state: 'skipped', exec: o.executionId, error: o.error };
    return { id: o.deadLetterId, state: 'failed', exec: null, error: o.error };
  });
  await db.query(
    `UPDATE dlq_replay_items i SET state = x.state, execution_id = x.exec, error = x.error, done_at = now()
       FROM unnest($2::bigint[], $3::text[], $4::bigint[], $5::text[]) AS x(id, state, exec, error)
      WHERE i.job_id = $1 AND i.dead_letter_id = x.id AND i.state = 'pending'`,
    [jobId, rows.map((r) => r.id), rows.map((r) => r.state), rows.map((r) => r.exec), rows.map((r) => r.error)],
  );
  const count = (s: string) => rows.filter((r) => r.state === s).length;
  const out = { replayed: count('replayed'), skipped: count('skipped'), failed: count('failed') };
  await db.query(
    `UPDATE dlq_replay_jobs SET replayed = replayed + $2, skipped = skipped + $3, failed = failed + $4, updated_at = now() WHERE id = $1`,
    [jobId, out.replayed, out.skipped, out.failed],
  );
  return out;
}

/** Releases parked executions of a task with the attempts they keep; only rows nobody could
 *  have claimed. Their run_at (so their claim_at) comes down from the park to now, so their
 *  partitions' claim floors follow, under the task lock (sluice_claim_floor_lower; migration
 *  20261203000100000_claim_floor): one transaction. */
export async function releaseParkedExecutions(pool: Db, task: string, ids: readonly number[], attempts: readonly number[]): Promise<number> {
  if (ids.length === 0) return 0;
  return withTransaction(pool, async (db) => {
    await lockTask(db, task);
    const r = await db.query<{ n: number }>(
      `WITH moved AS (
         UPDATE executions e SET attempts = x.attempts, run_at = now()
           FROM unnest($1::bigint[], $2::int[]) AS x(id, attempts)
          WHERE e.id = x.id AND e.task = $3 AND e.state IN ('queued', 'blocked') AND e.attempts = 0
         RETURNING e.partition, e.claim_at, e.state, e.waiting_on
       )
       SELECT (SELECT count(*)::int FROM moved) AS n
       FROM (SELECT sluice_claim_floor_lower($3, array_agg(m.partition), array_agg(m.claim_at))
             FROM moved m WHERE m.state = 'queued' AND m.waiting_on IS NULL) l`,
      [ids, attempts, task],
    );
    return r.rows[0]?.n ?? 0;
  });
}

/**
 * What a replay needs of each task's current definition: whether it is active, its group
 * names and whether it orders by stream (a replay drops group keys and stream keys the
 * task no longer declares, as the task would for new work), and its maxAttempts.
 */
export async function replayTaskConfig(
  db: Db,
  tasks: readonly string[],
): Promise<Map<string, { active: boolean; groups: Set<string>; streams: boolean; maxAttempts: number }>> {
  const r = await db.query<{ task: string; active: boolean; groups: string[] | null; streams: boolean; max_attempts: number | null }>(
    `SELECT task, active, ARRAY(SELECT jsonb_array_elements(definition -> 'groups') ->> 'name') AS groups,
            jsonb_typeof(definition -> 'stream') = 'object' AS streams,
            (definition -> 'retry' ->> 'maxAttempts')::int AS max_attempts
       FROM task_runtime WHERE task = ANY ($1::text[])`,
    [[...new Set(tasks)]],
  );
  return new Map(
    r.rows.map((x) => [x.task, { active: x.active, groups: new Set(x.groups ?? []), streams: x.streams === true, maxAttempts: x.max_attempts ?? 3 }]),
  );
}
