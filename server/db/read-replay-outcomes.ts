// What became of a replay job's new executions: each replayed item's execution
// (dlq_replay_items.execution_id) looked up by primary key, and classified —
//   succeeded     the execution succeeded;
//   failedAgain   it went dead again (its row says dead, or the row is gone and a dead
//                 letter of that execution exists: dead_letters.execution_id is unique);
//   canceled      an operator canceled it;
//   running       still on its way (queued, blocked, scheduled, spilled or running);
//   removed       the row is gone and no dead letter names it: finished and deleted by
//                 retention (server/core/retention-policy.ts) — the outcome is no longer known.
// Counting reads at most OUTCOME_CAP items of each job (a job of a million dead letters
// must not make the replay panel's poll scan a million rows); `capped` says so.
import type { Db } from './pool';

export const OUTCOME_CAP = 10_000;

export type ReplayOutcomeKind = 'succeeded' | 'failedAgain' | 'canceled' | 'running' | 'removed';

export interface ReplayOutcomeCounts {
  jobId: number;
  succeeded: number;
  failedAgain: number;
  canceled: number;
  running: number;
  removed: number;
  /** items read; when it reached the cap, the counts cover the first OUTCOME_CAP only */
  checked: number;
  capped: boolean;
}

const OUTCOME_SQL = `CASE
    WHEN e.state = 'succeeded' THEN 'succeeded'
    WHEN e.state = 'dead' THEN 'failedAgain'
    WHEN e.state = 'canceled' THEN 'canceled'
    WHEN e.state IS NOT NULL THEN 'running'
    WHEN EXISTS (SELECT 1 FROM dead_letters dl WHERE dl.execution_id = i.execution_id) THEN 'failedAgain'
    ELSE 'removed'
  END`;

export async function readReplayOutcomeCounts(db: Db, jobIds: number[]): Promise<ReplayOutcomeCounts[]> {
  if (jobIds.length === 0) return [];
  const r = await db.query<{ jobId: string; outcome: ReplayOutcomeKind; n: number }>(
    `SELECT j.id AS "jobId", x.outcome, count(*)::int AS n
       FROM unnest($1::bigint[]) j(id)
       CROSS JOIN LATERAL (
         SELECT ${OUTCOME_SQL} AS outcome
           FROM (SELECT i.execution_id FROM dlq_replay_items i
                  WHERE i.job_id = j.id AND i.state = 'replayed' AND i.execution_id IS NOT NULL LIMIT $2) i
           LEFT JOIN executions e ON e.id = i.execution_id
       ) x
      GROUP BY j.id, x.outcome`,
    [jobIds, OUTCOME_CAP],
  );
  return jobIds.map((jobId) => {
    const c: ReplayOutcomeCounts = { jobId, succeeded: 0, failedAgain: 0, canceled: 0, running: 0, removed: 0, checked: 0, capped: false };
    for (const row of r.rows) {
      if (Number(row.jobId) !== jobId) continue;
      c[row.outcome] += row.n;
      c.checked += row.n;
    }
    c.capped = c.checked >= OUTCOME_CAP;
    return c;
  });
}

export interface ReplayedExecutionRow {
  deadLetterId: number;
  executionId: number;
  outcome: ReplayOutcomeKind;
  /** the execution's state, null once the row is gone */
  state: string | null;
  attempts: number | null;
  finishedAt: Date | null;
}

/**
 * A page of a job's new executions, keyset on the dead letter id (the items' primary key
 * (job_id, dead_letter_id) serves it without a sort, whatever the job's size).
 */
export async function readReplayedExecutions(db: Db, jobId: number, limit: number, afterDeadLetterId = 0): Promise<ReplayedExecutionRow[]> {
  const r = await db.query<ReplayedExecutionRow>(
    `SELECT i.dead_letter_id::float8 AS "deadLetterId", i.execution_id::float8 AS "executionId", ${OUTCOME_SQL} AS outcome,
            e.state, e.attempts, e.finished_at AS "finishedAt"
       FROM dlq_replay_items i
       LEFT JOIN executions e ON e.id = i.execution_id
      WHERE i.job_id = $1 AND i.state = 'replayed' AND i.execution_id IS NOT NULL AND i.dead_letter_id > $2
      ORDER BY i.dead_letter_id
      LIMIT $3`,
    [jobId, afterDeadLetterId, limit],
  );
  return r.rows;
}
