// The coordinator's side of a cancel: which of the executions it runs has an operator asked
// to cancel (cancel_requested_at set while still running). Primary-key lookups of the
// coordinator's own running ids, once per heartbeat and on each sluice_cancel notification
// that names one of them (the notification is the fast path, this read the truth).
import type { Db } from './pool';

export async function cancelRequestedIds(db: Db, running: readonly { id: number; leaseToken: string }[]): Promise<number[]> {
  if (running.length === 0) return [];
  const r = await db.query<{ id: number }>(
    `SELECT e.id FROM unnest($1::bigint[], $2::uuid[]) AS x(id, token)
     JOIN executions e ON e.id = x.id AND e.lease_token = x.token
     WHERE e.state = 'running' AND e.cancel_requested_at IS NOT NULL`,
    [running.map((r) => r.id), running.map((r) => r.leaseToken)],
  );
  return r.rows.map((x) => x.id);
}
