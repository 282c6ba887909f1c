// GET /metrics: the conventional Prometheus path for the control plane's metrics (the
// same handler as /api/metrics).
export { GET } from '../api/metrics/route';

export const dynamic = 'force-dynamic';
