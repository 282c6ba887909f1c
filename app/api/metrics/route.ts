// GET /metrics-style endpoint of the control plane (Prometheus text): depth, imbalance,
// latency, dead letters, coordinators, alerts, roll-up lag, webhook outbox and service
// runs. Aggregates only — no payloads, no secrets — so it is open like the coordinators'
// /metrics unless SLUICE_METRICS_TOKEN is set, when it answers only that bearer token.
import { controlPlaneMetricsResponse } from '@/server/api/control-plane-metrics-response';

export const dynamic = 'force-dynamic';

export const GET = controlPlaneMetricsResponse;
