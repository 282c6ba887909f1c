// Coordinator timings and sizes, with defaults and the SLUICE_* environment overrides
// tests use to run with short leases. Validated once at start: a bad value stops the
// coordinator with a message naming the variable or flag. Core (pure: the caller passes
// the environment), because the control plane reads them too: the coordinators page
// judges heartbeats by the same staleMs (presenters/coordinators.ts).
import { z } from 'zod';
import { overlayEnv } from './env-overlay';

const ms = (def: number, min = 1) => z.coerce.number().int().min(min).max(86_400_000).default(def);

export const timingsSchema = z
  .object({
    /** How often the membership row is refreshed (and ownership re-evaluated). */
    heartbeatMs: ms(2000, 10),
    /** A member whose heartbeat is older than this is stale: others take its partitions and leases. */
    staleMs: ms(10_000, 50),
    /** Lease = task timeoutMs + this grace (for the completion batch to land). */
    leaseGraceMs: ms(5000, 0),
    /** Idle claim poll; a completion wakes the loop earlier. */
    pollMs: ms(50, 1),
    /** Config poll fallback (LISTEN sluice_config is the fast path). */
    configPollMs: ms(5000, 10),
    /** On SIGTERM: how long in-flight handlers may finish before they are released. */
    shutdownGraceMs: ms(10_000, 0),
    /** Completer: max time a finished execution waits for its batch. */
    flushMs: ms(5, 0),
    /** Slot folder: how often this member adds its claims' and finishes' logged per-key
     *  counter moves into group_slots (the Keys page and metrics lag the engine by this). */
    slotFoldMs: ms(100, 1),
    /** Multiplies every maintenance service's interval (tests use < 1). */
    maintenanceScale: z.coerce.number().min(0.001).max(1000).default(1),
  })
  .refine((t) => t.staleMs > t.heartbeatMs, { message: 'staleMs must be greater than heartbeatMs', path: ['staleMs'] });

export type Timings = z.output<typeof timingsSchema>;

/** The completer's default flush delay, for readers that model it (the what-if preview). */
export const DEFAULT_FLUSH_MS = timingsSchema.parse({}).flushMs;

const ENV: Record<keyof Timings, string> = {
  heartbeatMs: 'SLUICE_HEARTBEAT_MS',
  staleMs: 'SLUICE_STALE_MS',
  leaseGraceMs: 'SLUICE_LEASE_GRACE_MS',
  pollMs: 'SLUICE_POLL_MS',
  configPollMs: 'SLUICE_CONFIG_POLL_MS',
  shutdownGraceMs: 'SLUICE_SHUTDOWN_GRACE_MS',
  flushMs: 'SLUICE_FLUSH_MS',
  slotFoldMs: 'SLUICE_SLOT_FOLD_MS',
  maintenanceScale: 'SLUICE_MAINTENANCE_SCALE',
};

/** Explicit values win over SLUICE_* env, which wins over defaults. */
export function resolveTimings(explicit: Partial<Record<keyof Timings, unknown>>, env: Record<string, string | undefined>): Timings {
  const r = timingsSchema.safeParse(overlayEnv(explicit, env, ENV));
  if (!r.success) {
    const msg = r.error.issues.map((i) => `${ENV[i.path[0] as keyof Timings] ?? i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`invalid coordinator timings: ${msg}`);
  }
  return r.data;
}
