// Slot GC: deletes group_slots rows with no work that have been idle for idleMs, and
// rate_state rows whose TAT has passed (rate limits, issue #19: such a row means what an
// absent one means).
import type { MaintenanceService } from './service';
import { gcGroupSlots } from '../../db/gc-group-slots';
import { gcRateState } from '../../db/gc-rate-state';

export function slotGc(idleMs: number): MaintenanceService {
  return {
    name: 'slot-gc',
    intervalMs: 30_000,
    async run({ db }) {
      return { deleted: await gcGroupSlots(db, idleMs), rateStateDeleted: await gcRateState(db) };
    },
  };
}
