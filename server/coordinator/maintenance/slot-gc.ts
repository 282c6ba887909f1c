// Slot GC: deletes group_slots rows with no work that have been idle for idleMs.
import type { MaintenanceService } from './service';
import { gcGroupSlots } from '../../db/gc-group-slots';

export function slotGc(idleMs: number): MaintenanceService {
  return {
    name: 'slot-gc',
    intervalMs: 30_000,
    async run({ db }) {
      return { deleted: await gcGroupSlots(db, idleMs) };
    },
  };
}
