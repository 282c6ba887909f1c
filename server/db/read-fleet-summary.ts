// The Overview's fleet strip in one round trip: coordinators (live and not draining, by
// the one liveness predicate, server/db/coordinator-liveness.ts) and the roll-up cursor of
// the finest resolution (for "data is N s behind"). Open alert counts are not read here:
// the strip sums them from the task cards (readOpenAlertCounts), so the two agree.
import type { Db } from './pool';
import { coordinatorLive } from './coordinator-liveness';

export interface FleetSummaryRow {
  coordinators_live: number;
  coordinators_registered: number;
  coordinators_draining: number;
  rolled_until: Date | null;
  db_now: Date;
}

export async function readFleetSummary(db: Db): Promise<FleetSummaryRow> {
  const r = await db.query<FleetSummaryRow>(
    `SELECT
       (SELECT count(*)::int FROM coordinators c WHERE NOT c.draining AND ${coordinatorLive('c')}) AS coordinators_live,
       (SELECT count(*)::int FROM coordinators WHERE stopped_at IS NULL) AS coordinators_registered,
       (SELECT count(*)::int FROM coordinators WHERE stopped_at IS NULL AND draining) AS coordinators_draining,
       (SELECT rolled_until FROM metric_rollup_state WHERE resolution_s = 10) AS rolled_until,
       now() AS db_now`,
  );
  return r.rows[0]!;
}
