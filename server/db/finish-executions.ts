// Completion and failure in one batched call of sluice_finish
// (server/db/sql/functions/sluice_finish.sql): a batch of outcomes for one task — succeeded, retry (queued again
// at run_at, keeping its place as its stream's head), dead (dead_letters row), release
// (shutdown hand-back, the attempt not counted) — is one round trip and one commit.
// Each row matches on (id, lease_token, state = running): a late completion from a lease
// the rescuer already took back matches nothing and changes nothing (fenced); the ids
// returned are the ones that took effect. Failed attempts are kept in
// execution_attempts with error, stack, fingerprint and the coordinator that ran them.
// Counters (task in_flight, partition depth/in_flight/totals/latency histogram, group
// slots) move in the same function, rows locked in the engine's lock order; a finished
// stream head promotes the stream's next blocked execution under its advisory lock.
import type { Db } from './pool';

/** canceled: an operator's cancel aborted the handler (migration 20261124000300000); a row
 *  whose cancel was requested also finishes as canceled when its runner reports a failure
 *  or a release, so the reply may say canceled for those. */
export type FinishOutcome = 'succeeded' | 'retry' | 'dead' | 'release' | 'canceled';

export interface FinishItem {
  id: number;
  leaseToken: string;
  outcome: FinishOutcome;
  /** retry: when to run again. */
  runAt?: Date;
  error?: string;
  stack?: string;
  fingerprint?: string;
}

export interface FinishOptions {
  /** Lease rescuer: only rows whose lease expired or whose owner is stale/stopped. */
  onlyExpired?: boolean;
  staleMs?: number;
}

/** A batch as sluice_finish's seven array arguments (ids, lease tokens, outcomes, run_at,
 *  errors, stacks, fingerprints), in that order; sluice_cycle takes the same. With
 *  `nullWhenEmpty` an optional array with no value in it (a batch of successes has no
 *  errors) goes as one NULL, which sluice_cycle reads as NULL for every item. */
export function finishArrays(items: readonly FinishItem[], opts: { nullWhenEmpty?: boolean } = {}): unknown[] {
  const optional = <T>(pick: (i: FinishItem) => T | undefined): (T | null)[] | null => {
    const a = items.map((i) => pick(i) ?? null);
    return opts.nullWhenEmpty && a.every((v) => v === null) ? null : a;
  };
  return [
    items.map((i) => i.id),
    items.map((i) => i.leaseToken),
    items.map((i) => i.outcome),
    optional((i) => i.runAt),
    optional((i) => i.error),
    optional((i) => i.stack),
    optional((i) => i.fingerprint),
  ];
}

/** Returns the ids that took effect, with their outcome (absent = fenced). */
export async function finishExecutions(
  db: Db,
  task: string,
  items: readonly FinishItem[],
  opts: FinishOptions = {},
): Promise<Map<number, FinishOutcome>> {
  if (items.length === 0) return new Map();
  const r = await db.query<{ id: number; outcome: FinishOutcome }>(
    `SELECT id, outcome FROM sluice_finish($1, $2::bigint[], $3::uuid[], $4::text[], $5::timestamptz[], $6::text[], $7::text[], $8::text[], $9, $10)`,
    [task, ...finishArrays(items), opts.onlyExpired ?? false, Math.floor(opts.staleMs ?? 0)],
  );
  return new Map(r.rows.map((x) => [x.id, x.outcome]));
}
