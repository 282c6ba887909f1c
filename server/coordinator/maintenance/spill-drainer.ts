// Spill drainer: moves spilled executions back into their partitions as depth falls.
import type { MaintenanceService } from './service';
import { drainOverflow, tasksWithSpill } from '../../db/drain-overflow';

export const spillDrainer: MaintenanceService = {
  name: 'spill-drainer',
  intervalMs: 1000,
  async run({ db }) {
    let drained = 0;
    for (const t of (await tasksWithSpill(db)).sort((a, b) => (a.task < b.task ? -1 : 1))) {
      drained += (await drainOverflow(db, t.task, t.maxDepth)).drained;
    }
    return { drained };
  },
};
