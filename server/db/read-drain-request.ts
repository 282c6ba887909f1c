// Has the control plane asked this coordinator to drain (coordinators.draining, set by
// services/coordinator-drain.ts)? One PK read, polled by coordinator/drain-request.ts.
import type { Db } from './pool';

export async function drainRequested(db: Db, id: string): Promise<boolean> {
  const r = await db.query<{ draining: boolean }>('SELECT draining FROM coordinators WHERE id = $1', [id]);
  // A row deleted by stale-member cleanup also means: this member is no longer wanted.
  return r.rows[0]?.draining ?? true;
}
