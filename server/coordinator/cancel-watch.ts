// An operator's cancel of a running execution, seen from its coordinator: the control
// plane sets cancel_requested_at (db/cancel-executions.ts) and sends NOTIFY sluice_cancel
// with the id. A notification naming an execution running here is checked against the
// database (it must still run here under the same lease, with the request set); so is
// every running execution once per interval, the fallback for a lost notification
// (listener reconnecting, a pooler that drops LISTEN). Each hit is handed to onCancel once,
// which aborts the handler's AbortSignal; the finish then records `canceled`.
import type pg from 'pg';
import { cancelRequestedIds } from '../db/cancel-requested-ids';

export interface CancelWatchOptions {
  pool: pg.Pool;
  everyMs: number;
  /** Executions running here now (id + lease token). */
  running: () => { id: number; leaseToken: string }[];
  onCancel: (id: number) => void;
  log: (msg: string) => void;
}

export class CancelWatch {
  private timer: NodeJS.Timeout | null = null;
  private chain: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(private readonly o: CancelWatchOptions) {}

  start(): void {
    this.timer = setInterval(() => void this.check(null), this.o.everyMs);
    this.timer.unref();
  }

  /** A sluice_cancel notification: checked at once if the execution runs here. */
  notified(id: number): void {
    if (this.o.running().some((r) => r.id === id)) void this.check(id);
  }

  /** Serialised, so a poll and a notification never double-check concurrently. */
  private check(only: number | null): Promise<void> {
    this.chain = this.chain
      .then(async () => {
        if (this.stopped) return;
        const running = this.o.running().filter((r) => only === null || r.id === only);
        for (const id of await cancelRequestedIds(this.o.pool, running)) this.o.onCancel(id);
      })
      .catch((e) => this.o.log(`cancel check failed: ${(e as Error).message}`));
    return this.chain;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.chain;
  }
}
