// The maintenance services every coordinator runs (one at a time cluster-wide each).
import type { MaintenanceService } from './service';
import { leaseRescuer } from './lease-rescuer';
import { slotGc } from './slot-gc';
import { slotFold } from './slot-fold';
import { reconciler } from './reconciler';
import { spillDrainer } from './spill-drainer';
import { staleMemberCleanup } from './stale-members';
import { metricsSampler } from './metrics-sampler';
import { keyFinishes } from './key-finishes';
import { retention } from './retention';
import { vacuum } from './vacuum';
import { resolveRetention, type RetentionSettings } from '../../core/retention-policy';

export interface MaintenanceSettings {
  heartbeatMs: number;
  slotIdleMs?: number;
  /** Over SLUICE_RETAIN_* / SLUICE_IDEMPOTENCY_WINDOW_HOURS (server/core/retention-policy.ts). */
  retention?: Partial<RetentionSettings>;
  retainSamplesMs?: number;
}

export function defaultServices(s: MaintenanceSettings): MaintenanceService[] {
  return [
    leaseRescuer,
    slotGc(s.slotIdleMs ?? 5 * 60_000),
    slotFold,
    reconciler,
    spillDrainer,
    staleMemberCleanup(s.heartbeatMs, 60 * 60_000),
    metricsSampler,
    keyFinishes,
    retention(resolveRetention(s.retention ?? {}, process.env), s.retainSamplesMs ?? 7 * 24 * 3_600_000),
    vacuum,
  ];
}
