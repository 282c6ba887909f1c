// The Overview's fleet strip in one round trip: coordinators (live and not draining, by
// the one liveness predicate, server/db/coordinator-liveness.ts) and the roll-up cursor of
// the finest resolution (for "data is N s behind"), and the circuit breakers that are not
// closed (few rows; the cards' "Circuit open" and the strip's count), folded in here so the
// Overview spends no extra round trip on them. Open alert counts are not read here: the
// strip sums them from the task cards (readOpenAlertCounts), so the two agree.
import type { Db } from './pool';
import { coordinatorLive } from './coordinator-liveness';

export interface FleetSummaryRow {
  coordinators_live: number;
  coordinators_registered: number;
  coordinators_draining: number;
  rolled_until: Date | null;
  db_now: Date;
  /** Breakers not closed: task, state, since (ms, database clock), reason. */
  breakers: { task: string; state: 'open' | 'half-open'; sinceMs: number; reason: string }[];
}

export async function readFleetSummary(db: Db): Promise<FleetSummaryRow> {
  const r = await db.query<FleetSummaryRow>(
    `SELECT
       (SELECT count(*)::int FROM coordinators c WHERE NOT c.draining AND ${coordinatorLive('c')}) AS coordinators_live,
       (SELECT count(*)::int FROM coordinators WHERE stopped_at IS NULL) AS coordinators_registered,
       (SELECT count(*)::int FROM coordinators WHERE stopped_at IS NULL AND draining) AS coordinators_draining,
       (SELECT rolled_until FROM metric_rollup_state WHERE resolution_s = 10) AS rolled_until,
       (SELECT coalesce(json_agg(json_build_object('task', b.task, 'state', b.state, 'sinceMs', extract(epoch FROM b.since) * 1000, 'reason', b.reason)), '[]')
          FROM task_breakers b WHERE b.state <> 'closed') AS breakers,
       now() AS db_now`,
  );
  return r.rows[0]!;
}
