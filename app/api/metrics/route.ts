// GET /metrics-style endpoint of the control plane (Prometheus text): alerts firing,
// roll-up lag, webhook outbox and service runs. Aggregates only — no payloads, no
// secrets — so it is open like the coordinators' /metrics; bind the server to a private
// address (HOST) when Prometheus scrapes it from elsewhere.
import { controlPlaneMetricsResponse } from '@/server/api/control-plane-metrics-response';

export const dynamic = 'force-dynamic';

export const GET = controlPlaneMetricsResponse;
