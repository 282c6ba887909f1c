// Lease rescuer's read: running executions whose lease ran out or whose owner is gone
// (no row, stopped, or heartbeat older than staleMs). Reads executions_running_idx (task, id)
// in order (the running set is bounded by the tasks' concurrency) and the coordinators PK. The
// rescue itself is sluice_finish with onlyExpired, which re-checks this condition under
// the row lock and matches the lease token, so a completion racing the rescuer wins or
// loses cleanly.
import type { Db } from './pool';

export interface ExpiredLease {
  id: number;
  task: string;
  leaseToken: string;
  attempts: number;
  leaseOwner: string | null;
  ownerGone: boolean;
}

export async function findExpiredLeases(db: Db, staleMs: number, limit = 1000): Promise<ExpiredLease[]> {
  const r = await db.query<ExpiredLease>(
    `SELECT e.id, e.task, e.lease_token AS "leaseToken", e.attempts, e.lease_owner AS "leaseOwner",
            (c.id IS NULL OR c.stopped_at IS NOT NULL OR c.last_heartbeat_at < now() - make_interval(secs => $1 / 1000.0)) AS "ownerGone"
     FROM executions e LEFT JOIN coordinators c ON c.id = e.lease_owner
     WHERE e.state = 'running'
       AND (e.lease_expires_at < now() OR c.id IS NULL OR c.stopped_at IS NOT NULL
            OR c.last_heartbeat_at < now() - make_interval(secs => $1 / 1000.0))
     ORDER BY e.task, e.id
     LIMIT $2`,
    [staleMs, limit],
  );
  return r.rows;
}
