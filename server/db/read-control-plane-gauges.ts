// What the control plane's /metrics exposes, in one round trip: open alerts by task,
// rule, severity and status (the open-key partial index), roll-up cursors, webhook
// outbox counts by status, the control-plane services' last runs, dead letters per task
// (the trigger-kept dlq_fingerprint_stats counters, never a scan of dead_letters),
// coordinators by state (a small table) and the age of the oldest snapshot held.
import type { Db } from './pool';
import { coordinatorLive } from './coordinator-liveness';

export interface ControlPlaneGauges {
  alerts: { task: string; rule: string; severity: string; status: string; n: number }[];
  rollups: { resolution_s: number; lag_s: number }[];
  deliveries: { status: string; n: number }[];
  services: { name: string; last_finished_s: number | null; last_duration_ms: number | null; failing: boolean; runs: number }[];
  deadLetters: { task: string; total: number; pending: number }[];
  coordinators: { live: number; draining: number; registered: number };
  /** Seconds the oldest transaction holding a snapshot (backend_xmin) in this database has
   *  been open: while it is, vacuum keeps every dead row newer than it (docs/architecture.md
   *  § Retention and storage under churn). */
  oldestSnapshotS: number;
}

/** Coordinators are judged by the one liveness predicate (server/db/coordinator-liveness.ts). */
export async function readControlPlaneGauges(db: Db): Promise<ControlPlaneGauges> {
  const r = await db.query<{ g: ControlPlaneGauges }>(
    `SELECT json_build_object(
       'alerts', coalesce((SELECT json_agg(a) FROM (
           SELECT task, rule, severity, status, count(*)::int AS n FROM alerts
           WHERE status IN ('pending', 'firing', 'acknowledged') GROUP BY 1, 2, 3, 4) a), '[]'),
       'rollups', coalesce((SELECT json_agg(json_build_object('resolution_s', resolution_s,
           'lag_s', extract(epoch FROM now() - rolled_until)) ORDER BY resolution_s) FROM metric_rollup_state), '[]'),
       'deliveries', coalesce((SELECT json_agg(d) FROM (
           SELECT status, count(*)::int AS n FROM webhook_deliveries GROUP BY status) d), '[]'),
       'services', coalesce((SELECT json_agg(json_build_object('name', substr(name, 4),
           'last_finished_s', extract(epoch FROM last_finished_at), 'last_duration_ms', last_duration_ms,
           'failing', last_error IS NOT NULL, 'runs', runs) ORDER BY name)
         FROM maintenance_runs WHERE name LIKE 'cp:%'), '[]'),
       'deadLetters', coalesce((SELECT json_agg(d ORDER BY d.task) FROM (
           SELECT task, sum(count)::bigint AS total, sum(pending)::bigint AS pending
           FROM dlq_fingerprint_stats GROUP BY task) d), '[]'),
       'oldestSnapshotS', (SELECT coalesce(max(extract(epoch FROM now() - xact_start)), 0) FROM pg_stat_activity
           WHERE datname = current_database() AND backend_xmin IS NOT NULL AND pid <> pg_backend_pid()),
       'coordinators', (SELECT json_build_object(
           'live', count(*) FILTER (WHERE NOT c.draining AND ${coordinatorLive('c')}),
           'draining', count(*) FILTER (WHERE c.draining),
           'registered', count(*)) FROM coordinators c WHERE c.stopped_at IS NULL)
     ) AS g`,
  );
  return r.rows[0]!.g;
}
