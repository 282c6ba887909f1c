// GET /api/metrics (Prometheus text of the control plane) without the route: the
// presenter's text on the control plane's pool, or a 503 naming the cause when the
// database cannot be read (Prometheus then records the scrape as failed).
import { getPool } from '../db/pool';
import { controlPlaneMetricsText } from '../presenters/control-plane-metrics';

export async function controlPlaneMetricsResponse(): Promise<Response> {
  try {
    return new Response(await controlPlaneMetricsText(getPool()), {
      headers: { 'content-type': 'text/plain; version=0.0.4; charset=utf-8', 'cache-control': 'no-store' },
    });
  } catch (e) {
    console.error('[metrics] failed:', e);
    return new Response('# metrics unavailable: database error\n', { status: 503, headers: { 'content-type': 'text/plain; charset=utf-8' } });
  }
}
