// Slot fold: adds into group_slots the counter moves still logged in slot_deltas — those
// of a member that died (or was stopped) before its own folder ran, or of a process that
// claims and finishes without one. Every member folds its own moves within slotFoldMs
// (server/coordinator/slot-folder.ts); this is the backstop, so the per-key counters the
// console shows never lag by more than its interval.
import type { MaintenanceService } from './service';
import { foldSlotDeltas, tasksWithSlotDeltas } from '../../db/fold-slot-deltas';

export const slotFold: MaintenanceService = {
  name: 'slot-fold',
  intervalMs: 5_000,
  async run({ db }) {
    let folded = 0;
    const tasks = await tasksWithSlotDeltas(db);
    for (const task of tasks) folded += await foldSlotDeltas(db, task);
    return { tasks: tasks.length, folded };
  },
};
