// GET /metrics-style endpoint of the control plane (Prometheus text): alerts firing,
// roll-up lag, webhook outbox and service runs. Aggregates only — no payloads, no
// secrets — so it is open like the coordinators' /metrics; bind the server to a private
// address (HOST) when Prometheus scrapes it from elsewhere.
import { getPool } from '@/server/db/pool';
import { controlPlaneMetricsText } from '@/server/presenters/control-plane-metrics';

export const dynamic = 'force-dynamic';

export async function GET(): Promise<Response> {
  try {
    return new Response(await controlPlaneMetricsText(getPool()), {
      headers: { 'content-type': 'text/plain; version=0.0.4; charset=utf-8', 'cache-control': 'no-store' },
    });
  } catch (e) {
    console.error('[metrics] failed:', e);
    return new Response('# metrics unavailable: database error\n', { status: 503, headers: { 'content-type': 'text/plain; charset=utf-8' } });
  }
}
