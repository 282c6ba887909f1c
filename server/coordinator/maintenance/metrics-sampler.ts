// Metrics sampler: writes a metric sample per task and partition (and the task total)
// from the counters, plus the top group keys (db/write-metric-samples.ts).
import type { MaintenanceService } from './service';
import { writeMetricSamples } from '../../db/write-metric-samples';

export const metricsSampler: MaintenanceService = {
  name: 'metrics-sampler',
  intervalMs: 5000,
  async run({ db }) {
    return { ...(await writeMetricSamples(db)) };
  },
};
