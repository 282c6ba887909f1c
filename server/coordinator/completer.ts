// Batches finished executions (succeeded / retry / dead / release / canceled) per task
// and writes each batch with one sluice_finish call (db/finish-executions.ts: one round
// trip, one commit). A batch goes out after flushMs, as soon as it reaches maxBatch, or
// at once when nothing more can join it (nothingMoreComing); a failed write is retried on
// the next flush (the rows stay running with their lease, so nothing is lost — if the
// lease runs out first the rescuer takes over and the late write is fenced).
// With a `refill` hook (refill.ts) the batch goes out as sluice_cycle instead
// (db/finish-and-claim-executions.ts): the slots it frees are refilled in the same round
// trip and commit. The hook reserves the local slots the claim may fill before the call
// (so the claim loop, running concurrently on its own connection, cannot hand them out
// twice) and receives the claimed rows afterwards.
import type pg from 'pg';
import { finishExecutions, type FinishItem, type FinishOutcome } from '../db/finish-executions';
import type { ClaimedExecution } from '../db/claim-executions';
import { finishAndClaimExecutions } from '../db/finish-and-claim-executions';

export interface CompletedBatch {
  task: string;
  items: FinishItem[];
  applied: Map<number, FinishOutcome>;
}

export interface Refill {
  coordinatorId: string;
  /** Reserve up to this many local slots for a claim riding on the flush of `freeing`
   *  rows of `task`; null = finish only. Must be undone by `done`. */
  plan(task: string, freeing: number): { max: number; leaseMs: number } | null;
  /** After onFlushed: hand over the claimed rows and return the reservation. */
  done(task: string, reserved: number, rows: ClaimedExecution[]): void;
}

export interface CompleterOptions {
  pool: pg.Pool;
  /** Max time a finished execution waits for its batch. */
  flushMs: number;
  /** A batch goes out at once when it reaches this size (default 500). */
  maxBatch?: number;
  /** A batch was written: `applied` holds the rows that took effect (absent = fenced). */
  onFlushed: (b: CompletedBatch) => void;
  log: (m: string) => void;
  /** Refill the freed slots in the same call (sluice_cycle); absent = finish only. */
  refill?: Refill | null;
  /** True when waiting flushMs cannot batch anything more (e.g. every running handler
   *  of this member has finished): the batch goes out at once. */
  nothingMoreComing?: () => boolean;
}

export class Completer {
  private buffers = new Map<string, FinishItem[]>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> | null = null;
  private writing = 0;

  private readonly pool: pg.Pool;
  private readonly flushMs: number;
  private readonly maxBatch: number;
  private readonly onFlushed: (b: CompletedBatch) => void;
  private readonly log: (m: string) => void;
  private readonly refill: Refill | null;
  private readonly nothingMoreComing: () => boolean;

  constructor(o: CompleterOptions) {
    this.pool = o.pool;
    this.flushMs = o.flushMs;
    this.maxBatch = o.maxBatch ?? 500;
    this.onFlushed = o.onFlushed;
    this.log = o.log;
    this.refill = o.refill ?? null;
    this.nothingMoreComing = o.nothingMoreComing ?? (() => false);
  }

  add(task: string, item: FinishItem): void {
    let b = this.buffers.get(task);
    if (!b) this.buffers.set(task, (b = []));
    b.push(item);
    if (b.length >= this.maxBatch || this.nothingMoreComing()) void this.flush();
    else this.schedule();
  }

  /** Items handed to add() and not yet written: buffered + in the flush being written. */
  unflushed(): number {
    return this.pending() + this.writing;
  }

  pending(): number {
    let n = 0;
    for (const b of this.buffers.values()) n += b.length;
    return n;
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.flush();
    }, this.flushMs);
  }

  /** Writes everything buffered; resolves when the buffers are empty or a write failed. */
  async flush(): Promise<void> {
    if (this.flushing) {
      await this.flushing;
      if (this.pending() === 0) return;
    }
    this.flushing = this.flushOnce().finally(() => {
      this.flushing = null;
    });
    await this.flushing;
  }

  private async flushOnce(): Promise<void> {
    const batches = [...this.buffers.entries()].filter(([, b]) => b.length > 0);
    this.buffers = new Map();
    for (const [, items] of batches) this.writing += items.length;
    await Promise.all(
      batches.map(async ([task, items]) => {
        const plan = this.refill?.plan(task, items.length) ?? null;
        try {
          if (plan && this.refill) {
            const r = await finishAndClaimExecutions(this.pool, this.refill.coordinatorId, task, items, plan.max, plan.leaseMs);
            this.onFlushed({ task, items, applied: r.applied });
            this.refill.done(task, plan.max, r.claimed);
          } else {
            const applied = await finishExecutions(this.pool, task, items);
            this.onFlushed({ task, items, applied });
          }
        } catch (e) {
          if (plan) this.refill?.done(task, plan.max, []);
          this.log(`finish batch for ${task} failed (${items.length} kept for retry): ${(e as Error).message}`);
          const b = this.buffers.get(task) ?? [];
          this.buffers.set(task, [...items, ...b]);
          this.schedule();
        } finally {
          this.writing -= items.length;
        }
      }),
    );
  }

  /** Resolves when the flush being written (if any) is done: at shutdown, a claim that rode
   *  a flush planned before the member started draining has come back and its rows are in
   *  the ledger, so settling the handlers waits for them too (orderlyShutdown). */
  async idle(): Promise<void> {
    if (this.flushing) await this.flushing;
  }

  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    for (let i = 0; i < 5 && this.pending() > 0; i++) {
      await this.flush();
      if (this.pending() > 0) await new Promise((r) => setTimeout(r, 100));
    }
    // A flush started by the timer with nothing buffered after it: written before the
    // member is marked stopped and its pool closed.
    await this.idle();
  }
}
