// The coordinator's side of a cancel: which of the executions it runs has an operator asked
// to cancel (cancel_requested_at set while still running). Primary-key lookups of the
// coordinator's own running ids, once per heartbeat and on each sluice_cancel notification
// that names one of them (the notification is the fast path, this read the truth).
//
// One probe per id, by primary key: written as a plain join on `e.state = 'running'`, the
// planner walked executions_running_idx (every running row of every task) and matched the
// ids against it. Under a held snapshot that index keeps an entry for every row that ran
// since (none can be killed), and bench:soak's hold (2026-12-02) measured this poll at 57 ms
// and 9,084 buffers per call, 6.9 s of database time in 20 s across 3 coordinators.
// `IS NOT DISTINCT FROM` (the same test as `=`, state is NOT NULL) keeps the partial index
// out of the plan, as in sluice_finish_rows.
import type { Db } from './pool';

export const CANCEL_REQUESTED_SQL = `SELECT x.id FROM unnest($1::bigint[], $2::uuid[]) AS x(id, token)
     WHERE EXISTS (
       SELECT 1 FROM executions e
       WHERE e.id = x.id AND e.lease_token = x.token
         AND e.state IS NOT DISTINCT FROM 'running' AND e.cancel_requested_at IS NOT NULL)`;

export async function cancelRequestedIds(db: Db, running: readonly { id: number; leaseToken: string }[]): Promise<number[]> {
  if (running.length === 0) return [];
  const r = await db.query<{ id: number }>(CANCEL_REQUESTED_SQL, [running.map((r) => r.id), running.map((r) => r.leaseToken)]);
  return r.rows.map((x) => Number(x.id));
}
