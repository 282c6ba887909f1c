// One execution as GET /api/v1/executions/{id} shows it. A spilled execution (parked in
// the overflow table, not yet drained back) reads as queued with `spilled: true`; every
// failed attempt is listed (newest last). PK lookups only.
import type { Db } from '../db/pool';

export interface ExecutionAttemptView {
  attempt: number;
  outcome: 'retry' | 'dead';
  error: string;
  stack: string | null;
  fingerprint: string | null;
  coordinatorId: string | null;
  startedAt: Date | null;
  failedAt: Date;
}

export interface ExecutionView {
  id: number;
  task: string;
  state: 'queued' | 'running' | 'succeeded' | 'dead' | 'canceled';
  /** blocked: queued behind an unfinished execution of its stream. */
  blocked: boolean;
  /** Queued but set aside while one of its group keys is at its limit: that key,
   *  'group=key' (e.g. 'tenant=acme'); it becomes claimable as the key's slots free. */
  waitingOn: string | null;
  spilled: boolean;
  attempts: number;
  partition: number;
  groups: Record<string, string>;
  streamKey: string | null;
  idempotencyKey: string | null;
  lastError: string | null;
  payload: unknown;
  enqueuedAt: Date;
  runAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  leaseOwner: string | null;
  attemptHistory: ExecutionAttemptView[];
}

export async function getExecution(db: Db, id: number | string): Promise<ExecutionView | null> {
  const n = typeof id === 'number' ? id : /^\d{1,18}$/.test(id) ? Number(id) : NaN;
  if (!Number.isSafeInteger(n) || n <= 0) return null;
  const r = await db.query(
    `SELECT id, task, state, attempts, partition, groups, stream_key, idempotency_key, last_error, payload,
            enqueued_at, run_at, started_at, finished_at, lease_owner, false AS spilled,
            CASE WHEN state = 'queued' THEN waiting_on END AS waiting_on
     FROM executions WHERE id = $1
     UNION ALL
     SELECT id, task, 'queued', 0, partition, groups, stream_key, idempotency_key, NULL, payload,
            enqueued_at, run_at, NULL, NULL, NULL, true, NULL
     FROM overflow WHERE id = $1
     LIMIT 1`,
    [n],
  );
  const row = r.rows[0];
  if (!row) return null;
  const attempts = await db.query<ExecutionAttemptView>(
    `SELECT attempt, outcome, error, stack, fingerprint, coordinator_id AS "coordinatorId", started_at AS "startedAt", failed_at AS "failedAt"
     FROM execution_attempts WHERE execution_id = $1 ORDER BY attempt, id`,
    [n],
  );
  return {
    id: row.id,
    task: row.task,
    state: row.state === 'blocked' ? 'queued' : row.state,
    blocked: row.state === 'blocked',
    waitingOn: row.waiting_on,
    spilled: row.spilled,
    attempts: row.attempts,
    partition: row.partition,
    groups: row.groups,
    streamKey: row.stream_key,
    idempotencyKey: row.idempotency_key,
    lastError: row.last_error,
    payload: row.payload,
    enqueuedAt: row.enqueued_at,
    runAt: row.run_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    leaseOwner: row.lease_owner,
    attemptHistory: attempts.rows,
  };
}
