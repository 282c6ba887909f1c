// Leases on replay jobs: whoever holds a job's lease is the only one enqueueing its items.
// Any number of control-plane processes (and a CLI waiting on its own job) may try; the
// pick is one UPDATE of the oldest runnable job whose lease is free or expired
// (FOR UPDATE SKIP LOCKED in the sub-select, so two pickers never block on each other).
// A runner renews the lease before every batch; the renewal returns the job's state, so
// a pause or cancel takes effect at the next batch, and a runner whose lease was taken
// over (it stalled past lease_expires_at) learns it and stops. Progress lives in the
// rows (items and counters), so whoever takes over resumes where the last one stopped.
import type { Db } from './pool';

export interface ReplayJobRow {
  id: number;
  state: 'pending' | 'running' | 'paused' | 'cancelled' | 'completed' | 'failed';
  scope: 'ids' | 'filter';
  filter: unknown;
  resetAttempts: boolean;
  ratePerS: number | null;
  total: number;
  replayed: number;
  skipped: number;
  failed: number;
  createdByType: string;
  createdByLabel: string;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  updatedAt: Date;
  leaseOwner: string | null;
  leaseExpiresAt: Date | null;
  lastError: string | null;
  requestId: string | null;
}

export const REPLAY_JOB_COLUMNS = `id, state, scope, filter, reset_attempts AS "resetAttempts", rate_per_s AS "ratePerS", total, replayed,
  skipped, failed, created_by_type AS "createdByType", created_by_label AS "createdByLabel", created_at AS "createdAt",
  started_at AS "startedAt", finished_at AS "finishedAt", updated_at AS "updatedAt", lease_owner AS "leaseOwner",
  lease_expires_at AS "leaseExpiresAt", last_error AS "lastError", request_id AS "requestId"`;

/** Leases the oldest runnable job (or `jobId` only), marking it running; null when none is free. */
export async function leaseReplayJob(db: Db, owner: string, leaseMs: number, jobId?: number): Promise<ReplayJobRow | null> {
  const r = await db.query<ReplayJobRow>(
    `UPDATE dlq_replay_jobs j
        SET state = 'running', lease_owner = $1, lease_expires_at = now() + make_interval(secs => $2 / 1000.0),
            started_at = coalesce(j.started_at, now()), updated_at = now()
      WHERE j.id = (
        SELECT id FROM dlq_replay_jobs
         WHERE state IN ('pending', 'running')
           AND (lease_owner IS NULL OR lease_owner = $1 OR lease_expires_at < now())
           AND ($3::bigint IS NULL OR id = $3)
         ORDER BY id LIMIT 1
         FOR UPDATE SKIP LOCKED)
      RETURNING ${REPLAY_JOB_COLUMNS}`,
    [owner, leaseMs, jobId ?? null],
  );
  return r.rows[0] ?? null;
}

/** Extends the lease; the job's state, or null when the lease is no longer ours. */
export async function renewReplayLease(db: Db, jobId: number, owner: string, leaseMs: number): Promise<ReplayJobRow['state'] | null> {
  const r = await db.query<{ state: ReplayJobRow['state'] }>(
    `UPDATE dlq_replay_jobs SET lease_expires_at = now() + make_interval(secs => $3 / 1000.0)
      WHERE id = $1 AND lease_owner = $2 RETURNING state`,
    [jobId, owner, leaseMs],
  );
  return r.rows[0]?.state ?? null;
}

/** Gives the lease up (the job stays in its state; another runner may continue it). */
export async function releaseReplayLease(db: Db, jobId: number, owner: string): Promise<void> {
  await db.query(`UPDATE dlq_replay_jobs SET lease_owner = NULL, lease_expires_at = NULL WHERE id = $1 AND lease_owner = $2`, [jobId, owner]);
}

/** Marks a running job completed (or failed) when its lease is still ours. */
export async function finishReplayJob(db: Db, jobId: number, owner: string, state: 'completed' | 'failed', error: string | null): Promise<boolean> {
  const r = await db.query(
    `UPDATE dlq_replay_jobs SET state = $3, finished_at = now(), updated_at = now(), last_error = $4,
            lease_owner = NULL, lease_expires_at = NULL
      WHERE id = $1 AND lease_owner = $2 AND state = 'running'`,
    [jobId, owner, state, error],
  );
  return (r.rowCount ?? 0) > 0;
}

export async function getReplayJob(db: Db, jobId: number, opts: { lock?: boolean } = {}): Promise<ReplayJobRow | null> {
  const r = await db.query<ReplayJobRow>(`SELECT ${REPLAY_JOB_COLUMNS} FROM dlq_replay_jobs WHERE id = $1${opts.lock ? ' FOR UPDATE' : ''}`, [jobId]);
  return r.rows[0] ?? null;
}

export async function listReplayJobs(db: Db, limit: number, beforeId?: number): Promise<ReplayJobRow[]> {
  const r = await db.query<ReplayJobRow>(
    `SELECT ${REPLAY_JOB_COLUMNS} FROM dlq_replay_jobs WHERE ($2::bigint IS NULL OR id < $2) ORDER BY id DESC LIMIT $1`,
    [limit, beforeId ?? null],
  );
  return r.rows;
}

/**
 * Sets the state of a job (pause / resume / cancel); returns the updated row. The lease
 * is left alone: a runner in the middle of a batch still records it (fenced on the
 * lease), then sees the new state at its next renewal and lets go.
 */
export async function setReplayJobState(db: Db, jobId: number, state: ReplayJobRow['state'], finished: boolean): Promise<ReplayJobRow> {
  const r = await db.query<ReplayJobRow>(
    `UPDATE dlq_replay_jobs SET state = $2, updated_at = now(), finished_at = CASE WHEN $3 THEN now() ELSE finished_at END
      WHERE id = $1 RETURNING ${REPLAY_JOB_COLUMNS}`,
    [jobId, state, finished],
  );
  return r.rows[0]!;
}
