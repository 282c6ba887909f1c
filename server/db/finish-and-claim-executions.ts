// Finish a batch and refill the freed slots in one round trip: one call of the plpgsql
// function sluice_finish_and_claim (migration 20261123000500000), which runs sluice_finish
// and then sluice_claim in the same transaction (one commit). A busy coordinator pays one
// round trip per cycle instead of finish → wake → claim in series.
// Guarantees are the two functions' own: each finished row matches on (id, lease_token,
// state = running) — a completion from a lost lease changes nothing (fenced; its id is
// absent from `applied`); the claim takes at most `max` rows (the caller's free local
// slots, counting the rows being finished) and at most the task's free cluster-wide slots,
// read under the task_runtime row lock after the finish lowered in_flight.
import type { Db } from './pool';
import { CLAIMED_COLUMNS, type ClaimedExecution } from './claim-executions';
import { finishArrays, type FinishItem, type FinishOutcome } from './finish-executions';

export interface FinishAndClaimResult {
  /** Ids that took effect, with their outcome (absent = fenced). */
  applied: Map<number, FinishOutcome>;
  claimed: ClaimedExecution[];
}

/** One result row: a finished id with its outcome, or a claimed execution. */
type Row = ClaimedExecution & { kind: 'finished' | 'claimed'; outcome: FinishOutcome | null };

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
  const r = await db.query<Row>(
    `SELECT kind, outcome, ${CLAIMED_COLUMNS}
     FROM sluice_finish_and_claim($1, $2, $3, $4, $5::bigint[], $6::uuid[], $7::text[], $8::timestamptz[], $9::text[], $10::text[], $11::text[])`,
    [coordinatorId, task, take, Math.max(1, Math.floor(leaseMs)), ...finishArrays(items)],
  );
  const applied = new Map<number, FinishOutcome>();
  const claimed: ClaimedExecution[] = [];
  for (const x of r.rows) {
    if (x.kind === 'finished') applied.set(Number(x.id), x.outcome!);
    else {
      const { kind: _k, outcome: _o, ...row } = x;
      claimed.push(row);
    }
  }
  return { applied, claimed };
}
