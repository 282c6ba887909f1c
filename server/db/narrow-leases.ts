// A claim's lease covers the longest timeout any execution of the task can have (the
// task's or a group key's own, core/fleet-defaults.ts longestTimeout), since the claim
// does not know the rows' keys before it takes them. Once the rows are known, those whose
// own timeout is shorter get their lease shortened by the difference, so the lease rescuer
// reclaims an execution of such a key at its own timeout + grace, not the longest one's.
// One statement for the batch; each row matches on (id, lease_token, running), so a row
// already finished or rescued is left alone. A failure leaves the longer lease (safe: a
// lease never ends before its handler's timeout).
import type { Db } from './pool';

export interface LeaseCut {
  id: number;
  leaseToken: string;
  /** How much shorter than the claim's lease this row's lease should be. */
  byMs: number;
}

export async function narrowLeases(db: Db, cuts: readonly LeaseCut[]): Promise<number> {
  if (cuts.length === 0) return 0;
  const r = await db.query(
    `UPDATE executions e SET lease_expires_at = e.lease_expires_at - make_interval(secs => c.by_ms / 1000.0)
     FROM unnest($1::bigint[], $2::uuid[], $3::bigint[]) AS c(id, token, by_ms)
     WHERE e.id = c.id AND e.lease_token = c.token AND e.state = 'running'`,
    [cuts.map((c) => c.id), cuts.map((c) => c.leaseToken), cuts.map((c) => Math.floor(c.byMs))],
  );
  return r.rowCount ?? 0;
}
