// Retention: succeeded executions older than retainMs, metric samples older than
// samplesRetainMs (db/delete-finished-executions.ts).
import type { MaintenanceService } from './service';
import { deleteOldMetricSamples, deleteSucceededExecutions } from '../../db/delete-finished-executions';

export function retention(retainMs: number, samplesRetainMs: number): MaintenanceService {
  return {
    name: 'retention',
    intervalMs: 60_000,
    async run({ db }) {
      return { executions: await deleteSucceededExecutions(db, retainMs), samples: await deleteOldMetricSamples(db, samplesRetainMs) };
    },
  };
}
