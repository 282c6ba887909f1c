// The maintenance services every coordinator runs (one at a time cluster-wide each).
import type { MaintenanceService } from './service';
import { leaseRescuer } from './lease-rescuer';
import { slotGc } from './slot-gc';
import { reconciler } from './reconciler';
import { spillDrainer } from './spill-drainer';
import { staleMemberCleanup } from './stale-members';
import { metricsSampler } from './metrics-sampler';
import { keyFinishes } from './key-finishes';
import { retention } from './retention';

export interface MaintenanceSettings {
  heartbeatMs: number;
  slotIdleMs?: number;
  retainSucceededMs?: number;
  retainSamplesMs?: number;
}

export function defaultServices(s: MaintenanceSettings): MaintenanceService[] {
  return [
    leaseRescuer,
    slotGc(s.slotIdleMs ?? 5 * 60_000),
    reconciler,
    spillDrainer,
    staleMemberCleanup(s.heartbeatMs, 60 * 60_000),
    metricsSampler,
    keyFinishes,
    retention(s.retainSucceededMs ?? 24 * 3_600_000, s.retainSamplesMs ?? 7 * 24 * 3_600_000),
  ];
}
