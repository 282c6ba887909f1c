// GET /api/metrics (Prometheus text of the control plane) without the route: the
// presenter's text on the control plane's pool, or a 503 naming the cause when the
// database cannot be read (Prometheus then records the scrape as failed). With
// SLUICE_METRICS_TOKEN set, a request without `Authorization: Bearer <token>` gets a 401.
import { getPool } from '../db/pool';
import { env } from '../env';
import { controlPlaneMetricsText } from '../presenters/control-plane-metrics';
import { METRICS_UNAUTHORIZED_BODY, metricsRequestAllowed } from '../core/metrics-token';

export async function controlPlaneMetricsResponse(req: Request): Promise<Response> {
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
