// Key finishes: every 10 s, counts the executions finished since the last run per group
// key and minute (db/record-key-finishes.ts), for the Keys view's finished per minute.
import type { MaintenanceService } from './service';
import { recordKeyFinishes } from '../../db/record-key-finishes';

export const keyFinishes: MaintenanceService = {
  name: 'key-finishes',
  intervalMs: 10_000,
  async run({ db }) {
    return { ...(await recordKeyFinishes(db)) };
  },
};
