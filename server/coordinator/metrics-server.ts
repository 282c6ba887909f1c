// GET /metrics on 127.0.0.1:<port> in the Prometheus text format (plain node:http).
// With a token (SLUICE_METRICS_TOKEN), only `Authorization: Bearer <token>` is answered.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CoordinatorMetrics } from './coordinator-metrics';
import { METRICS_UNAUTHORIZED_BODY, metricsRequestAllowed } from '../core/metrics-token';

export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

export async function startMetricsServer(metrics: CoordinatorMetrics, port: number, host = '127.0.0.1', token?: string): Promise<MetricsServer> {
  const server = http.createServer((req, res) => {
    if (req.method === 'GET' && (req.url === '/metrics' || req.url?.startsWith('/metrics?'))) {
      if (!metricsRequestAllowed(req.headers.authorization, token)) {
        res.writeHead(401, { 'content-type': 'text/plain; charset=utf-8', 'www-authenticate': 'Bearer realm="sluice metrics"' });
        res.end(METRICS_UNAUTHORIZED_BODY);
        return;
      }
      const body = metrics.render();
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' });
      res.end(body);
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found: try /metrics\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
