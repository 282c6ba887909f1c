// Reconciler: recomputes every task's counters from the tables and repairs drift,
// logging each mismatch in reconcile_log (db/reconcile-counters.ts). Tasks in name order.
import type { MaintenanceService } from './service';
import { reconcilableTasks, reconcileTask } from '../../db/reconcile-counters';

export const reconciler: MaintenanceService = {
  name: 'reconciler',
  intervalMs: 30_000,
  async run({ db, log }) {
    let mismatches = 0;
    for (const task of await reconcilableTasks(db)) {
      const m = await reconcileTask(db, task);
      if (m.length > 0) log(`reconciler repaired ${m.length} counter(s) of ${task}`);
      mismatches += m.length;
    }
    return { mismatches };
  },
};
