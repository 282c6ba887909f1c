// The control plane's Prometheus families (the coordinators expose their own on their
// metrics port): alerts open/firing, roll-up lag, webhook outbox, service runs.
import type { Db } from '../db/pool';
import { readControlPlaneGauges } from '../db/read-control-plane-gauges';
import { renderFamilies, type MetricFamily } from '../core/prometheus-text';

export async function controlPlaneMetricsText(db: Db): Promise<string> {
  const g = await readControlPlaneGauges(db);
  const firing = g.alerts.filter((a) => a.status === 'firing');
  const families: MetricFamily[] = [
    {
      name: 'sluice_alerts_firing',
      help: 'Alerts firing (not yet acknowledged), by task, rule and severity.',
      type: 'gauge',
      samples: firing.map((a) => ({ labels: { task: a.task, rule: a.rule, severity: a.severity }, value: a.n })),
    },
    {
      name: 'sluice_alerts_open',
      help: 'Open alert episodes by task, rule, severity and status (pending, firing, acknowledged).',
      type: 'gauge',
      samples: g.alerts.map((a) => ({ labels: { task: a.task, rule: a.rule, severity: a.severity, status: a.status }, value: a.n })),
    },
    {
      name: 'sluice_alerts_firing_total',
      help: 'All alerts firing, any task.',
      type: 'gauge',
      samples: [{ labels: {}, value: firing.reduce((n, a) => n + a.n, 0) }],
    },
    {
      name: 'sluice_rollup_lag_seconds',
      help: 'Seconds since each roll-up resolution was last brought up to date.',
      type: 'gauge',
      samples: g.rollups.map((r) => ({ labels: { resolution: `${r.resolution_s}s` }, value: Math.max(0, Number(r.lag_s)) })),
    },
    {
      name: 'sluice_webhook_deliveries',
      help: 'Webhook deliveries in the log by status (pending, delivered, failed).',
      type: 'gauge',
      samples: ['pending', 'delivered', 'failed'].map((s) => ({ labels: { status: s }, value: g.deliveries.find((d) => d.status === s)?.n ?? 0 })),
    },
    {
      name: 'sluice_control_plane_service_last_run_timestamp_seconds',
      help: 'When each control-plane service last finished a run.',
      type: 'gauge',
      samples: g.services.filter((s) => s.last_finished_s !== null).map((s) => ({ labels: { service: s.name }, value: Number(s.last_finished_s) })),
    },
    {
      name: 'sluice_control_plane_service_failing',
      help: '1 when the service\'s last run failed.',
      type: 'gauge',
      samples: g.services.map((s) => ({ labels: { service: s.name }, value: s.failing ? 1 : 0 })),
    },
  ];
  return renderFamilies(families);
}
