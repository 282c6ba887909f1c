// Retention: succeeded and canceled executions older than retainMs, metric samples older
// than samplesRetainMs (db/delete-finished-executions.ts), cancel previews a day after
// they expired (db/cancel-frozen-set.ts).
import type { MaintenanceService } from './service';
import { deleteOldMetricSamples, deleteSucceededExecutions } from '../../db/delete-finished-executions';
import { deleteOldCancelPreviews } from '../../db/cancel-frozen-set';

export function retention(retainMs: number, samplesRetainMs: number): MaintenanceService {
  return {
    name: 'retention',
    intervalMs: 60_000,
    async run({ db }) {
      return {
        executions: await deleteSucceededExecutions(db, retainMs),
        samples: await deleteOldMetricSamples(db, samplesRetainMs),
        cancelPreviews: await deleteOldCancelPreviews(db, 24),
      };
    },
  };
}
