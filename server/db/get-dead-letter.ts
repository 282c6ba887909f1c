// One dead letter for the detail view: the row (payload, groups, stream, last stack), every
// failed attempt of its execution (execution_attempts by (execution_id, attempt) index),
// the replays that acted on it (dlq_replay_items by dead_letter_id, with the job's
// author) and the current state of the execution its replay created. Three indexed
// lookups; nothing scans.
import type { Db } from './pool';

export interface DeadLetterRow {
  id: number;
  executionId: number;
  task: string;
  payload: unknown;
  groups: Record<string, string>;
  streamKey: string | null;
  idempotencyKey: string | null;
  partition: number;
  attempts: number;
  lastError: string;
  stack: string | null;
  fingerprint: string;
  enqueuedAt: Date;
  deadAt: Date;
  replayedAt: Date | null;
  replayExecutionId: number | null;
  replayExecutionState: string | null;
}

export interface AttemptRow {
  attempt: number;
  startedAt: Date | null;
  failedAt: Date;
  outcome: string;
  error: string;
  stack: string | null;
  fingerprint: string | null;
  coordinatorId: string | null;
}

export interface ReplayRecordRow {
  jobId: number;
  jobState: string;
  itemState: string;
  executionId: number | null;
  doneAt: Date | null;
  error: string | null;
  byLabel: string;
  byType: string;
  requestedAt: Date;
}

export async function getDeadLetter(db: Db, id: number): Promise<DeadLetterRow | null> {
  const r = await db.query<DeadLetterRow>(
    `SELECT d.id, d.execution_id AS "executionId", d.task, d.payload, d.groups, d.stream_key AS "streamKey",
            d.idempotency_key AS "idempotencyKey", d.partition, d.attempts, d.last_error AS "lastError", d.stack,
            d.fingerprint, d.enqueued_at AS "enqueuedAt", d.dead_at AS "deadAt", d.replayed_at AS "replayedAt",
            d.replay_execution_id AS "replayExecutionId", e.state AS "replayExecutionState"
       FROM dead_letters d
       LEFT JOIN executions e ON e.id = d.replay_execution_id
      WHERE d.id = $1`,
    [id],
  );
  return r.rows[0] ?? null;
}

export async function deadLetterAttempts(db: Db, executionId: number): Promise<AttemptRow[]> {
  const r = await db.query<AttemptRow>(
    `SELECT attempt, started_at AS "startedAt", failed_at AS "failedAt", outcome, error, stack, fingerprint,
            coordinator_id AS "coordinatorId"
       FROM execution_attempts WHERE execution_id = $1 ORDER BY attempt, id`,
    [executionId],
  );
  return r.rows;
}

export async function deadLetterReplays(db: Db, deadLetterId: number): Promise<ReplayRecordRow[]> {
  const r = await db.query<ReplayRecordRow>(
    `SELECT j.id AS "jobId", j.state AS "jobState", i.state AS "itemState", i.execution_id AS "executionId",
            i.done_at AS "doneAt", i.error, j.created_by_label AS "byLabel", j.created_by_type AS "byType",
            j.created_at AS "requestedAt"
       FROM dlq_replay_items i JOIN dlq_replay_jobs j ON j.id = i.job_id
      WHERE i.dead_letter_id = $1
      ORDER BY j.id`,
    [deadLetterId],
  );
  return r.rows;
}
