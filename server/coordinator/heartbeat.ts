// The heartbeat: every interval this member refreshes its membership row (last_heartbeat_at,
// in_flight) and re-syncs partition ownership; partitions it took wake the claim loop.
// A draining member still beats (so the lease rescuer leaves the work it is finishing
// alone) but takes no partitions and does not rejoin (db/coordinator-membership). A beat
// never overlaps the previous one; a failed beat is logged and the next one tries again.
import type pg from 'pg';
import { drainingHeartbeat, heartbeat } from '../db/coordinator-membership';

export interface HeartbeatOptions {
  pool: pg.Pool;
  id: string;
  everyMs: number;
  inFlight: () => number;
  draining: () => boolean;
  /** Re-sync partition ownership (Ownership.tick). */
  syncOwnership: () => Promise<{ taken: number }>;
  /** Partitions were taken: there may be work to claim. */
  onTaken: () => void;
  log: (m: string) => void;
  /** The membership writes (tests pass their own). */
  membership?: { heartbeat: typeof heartbeat; drainingHeartbeat: typeof drainingHeartbeat };
}

export class Heartbeat {
  private timer: NodeJS.Timeout | null = null;
  private beating: Promise<void> | null = null;
  private readonly db: NonNullable<HeartbeatOptions['membership']>;

  constructor(private readonly o: HeartbeatOptions) {
    this.db = o.membership ?? { heartbeat, drainingHeartbeat };
  }

  start(): void {
    this.timer = setInterval(() => void this.beat(), this.o.everyMs);
  }

  /** One beat; resolves at once if one is already running. */
  beat(): Promise<void> {
    if (this.beating) return Promise.resolve();
    this.beating = this.beatOnce().finally(() => (this.beating = null));
    return this.beating;
  }

  private async beatOnce(): Promise<void> {
    try {
      if (this.o.draining()) {
        // Finishing in-flight work: stay alive for the rescuer, take no partitions.
        await this.db.drainingHeartbeat(this.o.pool, this.o.id, this.o.inFlight());
        return;
      }
      await this.db.heartbeat(this.o.pool, this.o.id, this.o.inFlight());
      const r = await this.o.syncOwnership();
      if (r.taken > 0) this.o.onTaken();
    } catch (e) {
      this.o.log(`heartbeat failed: ${(e as Error).message}`);
    }
  }

  /** No more beats; resolves once a beat in progress has finished. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    while (this.beating) await this.beating;
  }
}
