// Stale-member cleanup: marks members silent for staleMs as stopped (their partitions
// are released; their leases are the rescuer's) and forgets rows stopped long ago.
import type { MaintenanceService } from './service';
import { cleanupStaleMembers } from '../../db/coordinator-membership';

export function staleMemberCleanup(intervalMs: number, forgetAfterMs: number): MaintenanceService {
  return {
    name: 'stale-member-cleanup',
    intervalMs,
    async run({ db, staleMs }) {
      return cleanupStaleMembers(db, staleMs, forgetAfterMs);
    },
  };
}
