// What the control plane's /metrics exposes, in one round trip: open alerts by task,
// rule, severity and status (the open-key partial index), roll-up cursors, webhook
// outbox counts by status, and the control-plane services' last runs.
import type { Db } from './pool';

export interface ControlPlaneGauges {
  alerts: { task: string; rule: string; severity: string; status: string; n: number }[];
  rollups: { resolution_s: number; lag_s: number }[];
  deliveries: { status: string; n: number }[];
  services: { name: string; last_finished_s: number | null; last_duration_ms: number | null; failing: boolean; runs: number }[];
}

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
         FROM maintenance_runs WHERE name LIKE 'cp:%'), '[]')
     ) AS g`,
  );
  return r.rows[0]!.g;
}
