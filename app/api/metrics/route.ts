// GET /metrics-style endpoint of the control plane (Prometheus text): depth, imbalance,
// latency, dead letters, coordinators, alerts, roll-up lag, webhook outbox and service
// runs. Aggregates only — no payloads, no secrets — so it is open like the coordinators'
// /metrics unless SLUICE_METRICS_TOKEN is set, when it answers only that bearer token.
import { getPool } from '@/server/db/pool';
import { env } from '@/server/env';
import { controlPlaneMetricsText } from '@/server/presenters/control-plane-metrics';
import { METRICS_UNAUTHORIZED_BODY, metricsRequestAllowed } from '@/server/core/metrics-token';

export const dynamic = 'force-dynamic';

export async function GET(req: Request): Promise<Response> {
  if (!metricsRequestAllowed(req.headers.get('authorization'), env().SLUICE_METRICS_TOKEN)) {
    return new Response(METRICS_UNAUTHORIZED_BODY, {
      status: 401,
      headers: { 'content-type': 'text/plain; charset=utf-8', 'www-authenticate': 'Bearer realm="sluice metrics"' },
    });
  }
  try {
    return new Response(await controlPlaneMetricsText(getPool()), {
      headers: { 'content-type': 'text/plain; version=0.0.4; charset=utf-8', 'cache-control': 'no-store' },
    });
  } catch (e) {
    console.error('[metrics] failed:', e);
    return new Response('# metrics unavailable: database error\n', { status: 503, headers: { 'content-type': 'text/plain; charset=utf-8' } });
  }
}
