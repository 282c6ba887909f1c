// The Overview's fleet strip in one round trip: coordinators (live = heartbeat within
// `staleMs` by the database clock, not stopped), open alerts by severity, and the roll-up
// cursor of the finest resolution (for "data is N s behind"). Each part is a small
// table or a partial index (alerts_open_key).
import type { Db } from './pool';

export interface FleetSummaryRow {
  coordinators_live: number;
  coordinators_registered: number;
  coordinators_draining: number;
  alerts_firing_critical: number;
  alerts_firing_warning: number;
  alerts_acknowledged: number;
  rolled_until: Date | null;
  db_now: Date;
}

export async function readFleetSummary(db: Db, staleMs: number): Promise<FleetSummaryRow> {
  const r = await db.query<FleetSummaryRow>(
    `SELECT
       (SELECT count(*)::int FROM coordinators WHERE stopped_at IS NULL AND NOT draining
          AND last_heartbeat_at >= now() - make_interval(secs => $1 / 1000.0)) AS coordinators_live,
       (SELECT count(*)::int FROM coordinators WHERE stopped_at IS NULL) AS coordinators_registered,
       (SELECT count(*)::int FROM coordinators WHERE stopped_at IS NULL AND draining) AS coordinators_draining,
       (SELECT count(*)::int FROM alerts WHERE status = 'firing' AND severity = 'critical') AS alerts_firing_critical,
       (SELECT count(*)::int FROM alerts WHERE status = 'firing' AND severity = 'warning') AS alerts_firing_warning,
       (SELECT count(*)::int FROM alerts WHERE status = 'acknowledged') AS alerts_acknowledged,
       (SELECT rolled_until FROM metric_rollup_state WHERE resolution_s = 10) AS rolled_until,
       now() AS db_now`,
    [staleMs],
  );
  return r.rows[0]!;
}
