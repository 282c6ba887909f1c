// Finish a batch and refill the freed slots in one round trip: one call of the plpgsql
// function sluice_cycle (server/db/sql/functions/sluice_cycle.sql), which runs sluice_finish and then
// sluice_claim in the same transaction (one commit). A busy coordinator pays one round
// trip per cycle instead of finish → wake → claim in series.
// Guarantees are the two functions' own: each finished row matches on (id, lease_token,
// state = running) — a completion from a lost lease changes nothing (fenced; its id is
// absent from `applied`); the claim takes at most `max` rows (the caller's free local
// slots, counting the rows being finished) and at most the task's free cluster-wide slots,
// read under the task_runtime row lock after the finish lowered in_flight.
// The reply is lean because this is the hottest call there is: only the fenced ids (an
// applied item took the outcome it asked for) and the claimed rows; arrays that would be
// all NULL (no errors in a batch of successes) are sent as one NULL.
import type { Db } from './pool';
import { CLAIMED_COLUMNS, type ClaimedExecution } from './claim-executions';
import { finishArrays, type FinishItem, type FinishOutcome } from './finish-executions';

export interface FinishAndClaimResult {
  /** Ids that took effect, with their outcome (absent = fenced). */
  applied: Map<number, FinishOutcome>;
  claimed: ClaimedExecution[];
}

export async function finishAndClaimExecutions(
  db: Db,
  coordinatorId: string,
  task: string,
  items: readonly FinishItem[],
  max: number,
  leaseMs: number,
): Promise<FinishAndClaimResult> {
  const take = Math.max(0, Math.floor(max));
  if (items.length === 0 && take === 0) return { applied: new Map(), claimed: [] };
  const r = await db.query<ClaimedExecution>(
    `SELECT ${CLAIMED_COLUMNS}
     FROM sluice_cycle($1, $2, $3, $4, $5::bigint[], $6::uuid[], $7::text[], $8::timestamptz[], $9::text[], $10::text[], $11::text[])`,
    [coordinatorId, task, take, Math.max(1, Math.floor(leaseMs)), ...finishArrays(items, { nullWhenEmpty: true })],
  );
  const fenced = new Set<number>();
  const claimed: ClaimedExecution[] = [];
  for (const x of r.rows) {
    if (x.leaseToken === null) fenced.add(Number(x.id));
    else claimed.push(x);
  }
  const applied = new Map<number, FinishOutcome>();
  for (const i of items) if (!fenced.has(i.id)) applied.set(i.id, i.outcome);
  return { applied, claimed };
}
