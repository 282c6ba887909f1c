// Claim: one call of the plpgsql function sluice_claim (server/db/sql/functions/sluice_claim.sql) =
// one round trip, one commit, at most `max` rows (the caller passes its free slots, so
// it never fetches more than it can run). The function file's header explains the
// shape and what was measured: task_runtime row lock → saturated keys from the task's running rows (≤ concurrency) →
// per owned partition an index range scan of the claim index, skipping saturated keys →
// per-key ranking → UPDATE to running + counters.
// Measured (bench/engine.ts, local PG15, 2 cores): see the report in the bench output;
// claim p99 stays flat from 1k to 10k distinct keys because the saturated set is bounded
// by the task's concurrency, not by the number of keys.
import type { Db } from './pool';

export interface ClaimedExecution {
  id: number;
  partition: number;
  attempts: number;
  payload: unknown;
  groups: Record<string, string>;
  streamKey: string | null;
  idempotencyKey: string | null;
  leaseToken: string;
}

/** The claim functions' row columns as a ClaimedExecution (sluice_claim and sluice_cycle
 *  both have them), and only what a coordinator uses: every column is parsed on every
 *  claim (payload and groups as JSON), the hottest reply there is. */
export const CLAIMED_COLUMNS = `id, partition, attempts, payload, groups, stream_key AS "streamKey",
  idempotency_key AS "idempotencyKey", lease_token AS "leaseToken"`;

export async function claimExecutions(
  db: Db,
  coordinatorId: string,
  task: string,
  max: number,
  leaseMs: number,
): Promise<ClaimedExecution[]> {
  if (max <= 0) return [];
  const r = await db.query<ClaimedExecution>(
    `SELECT ${CLAIMED_COLUMNS} FROM sluice_claim($1, $2, $3, $4)`,
    [coordinatorId, task, Math.floor(max), Math.max(1, Math.floor(leaseMs))],
  );
  return r.rows;
}
