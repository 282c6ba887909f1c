// A replay job and its frozen set, inside the caller's transaction:
//   1. INSERT the job; ON CONFLICT (request_id) DO NOTHING — a double click or a retried
//      request with the same key finds the first job instead of making a second;
//   2. INSERT … SELECT the matching dead letters that are not replayed yet into
//      dlq_replay_items (seq = original execution id, the order they will be enqueued in,
//      which is each stream's original order); the same WHERE as the browser;
//   3. set the job's total.
// Dead letters already replayed are left out and counted, so the operator is told.
import type { DeadLetterFilter } from '../core/dead-letter-filter';
import type { Actor } from './audit';
import type { Db } from './pool';
import { deadLetterWhere } from './dead-letter-conditions';

export type ReplayScope = { kind: 'filter'; filter: DeadLetterFilter } | { kind: 'ids'; ids: number[] };

export interface NewReplayJob {
  requestId: string | null;
  scope: ReplayScope;
  resetAttempts: boolean;
  ratePerS: number | null;
  actor: Actor;
}

/** Inserts the job row; null when a job with this request id already exists. */
export async function insertReplayJob(db: Db, job: NewReplayJob): Promise<number | null> {
  const r = await db.query<{ id: number }>(
    `INSERT INTO dlq_replay_jobs (request_id, scope, filter, reset_attempts, rate_per_s, created_by_type, created_by_id, created_by_label)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
     ON CONFLICT (request_id) DO NOTHING
     RETURNING id`,
    [
      job.requestId,
      job.scope.kind,
      JSON.stringify(job.scope.kind === 'filter' ? job.scope.filter : { ids: job.scope.ids }),
      job.resetAttempts,
      job.ratePerS,
      job.actor.type,
      job.actor.id,
      job.actor.label,
    ],
  );
  return r.rows[0]?.id ?? null;
}

export async function replayJobIdByRequest(db: Db, requestId: string): Promise<number | null> {
  const r = await db.query<{ id: number }>(`SELECT id FROM dlq_replay_jobs WHERE request_id = $1`, [requestId]);
  return r.rows[0]?.id ?? null;
}

/**
 * Freezes the set into dlq_replay_items; returns {total, alreadyReplayed, byTask}. With a
 * `previewId` the set is the ids that preview froze (dlq_purge_preview_items, purpose
 * replay), not the filter run again: what arrived after the preview is not in it.
 */
export async function freezeReplaySet(
  db: Db,
  jobId: number,
  scope: ReplayScope,
  previewId?: string,
): Promise<{ total: number; alreadyReplayed: number; byTask: { task: string; count: number }[] }> {
  const params: unknown[] = [jobId];
  let where: string;
  if (previewId !== undefined) {
    params.push(previewId);
    where = `d.id IN (SELECT p.dead_letter_id FROM dlq_purge_preview_items p WHERE p.preview_id = $2)`;
  } else if (scope.kind === 'filter') {
    where = deadLetterWhere(scope.filter, 'd', params).sql;
  } else {
    params.push(scope.ids);
    where = `d.id = ANY ($2::bigint[])`;
  }
  const r = await db.query<{ task: string; frozen: number; replayed: number }>(
    `WITH m AS (
       SELECT d.id, d.execution_id, d.task, d.replayed_at IS NOT NULL AS replayed FROM dead_letters d WHERE ${where}
     ), ins AS (
       INSERT INTO dlq_replay_items (job_id, dead_letter_id, seq)
       SELECT $1, m.id, m.execution_id FROM m WHERE NOT m.replayed
       RETURNING dead_letter_id
     )
     SELECT m.task, count(*) FILTER (WHERE NOT m.replayed)::int AS frozen, count(*) FILTER (WHERE m.replayed)::int AS replayed
       FROM m GROUP BY m.task ORDER BY count(*) DESC, m.task`,
    params,
  );
  const total = r.rows.reduce((a, x) => a + x.frozen, 0);
  const alreadyReplayed = r.rows.reduce((a, x) => a + x.replayed, 0);
  await db.query(`UPDATE dlq_replay_jobs SET total = $2, updated_at = now() WHERE id = $1`, [jobId, total]);
  return { total, alreadyReplayed, byTask: r.rows.filter((x) => x.frozen > 0).map((x) => ({ task: x.task, count: x.frozen })) };
}
