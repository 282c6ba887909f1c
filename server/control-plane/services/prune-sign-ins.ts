// Control-plane service: deletes expired sessions and sign-in throttle rows that no longer
// count (services/sessions.ts, services/auth.ts). Neither is needed for correctness — an
// expired session resolves to no one, a stale throttle row starts a fresh window — but
// without this both tables only grow, the throttle table by one row per address and email
// ever tried.
import type { ControlPlaneService } from '../service';
import { deleteExpiredSessions } from '../../services/sessions';
import { deleteStaleThrottleRows } from '../../services/auth';

export const pruneSignInsService: ControlPlaneService = {
  name: 'prune-sign-ins',
  intervalMs: 10 * 60_000,
  mode: 'steps',
  async run(ctx) {
    const sessions = await deleteExpiredSessions(ctx.pool);
    const throttleRows = await deleteStaleThrottleRows(ctx.pool);
    if (sessions + throttleRows > 0) ctx.log(`[auth] pruned ${sessions} expired session(s) and ${throttleRows} stale sign-in throttle row(s)`);
    return { sessions, throttleRows };
  },
};
