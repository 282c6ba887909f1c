// Folds this member's logged slot counter moves (slot_deltas) into group_slots, outside the
// task lock and off the claim's path: the claims and finishes of a grouped task append
// their per-key moves instead of updating a counter row per key under the lock
// (sluice_fold_slots.sql says why). touched(task) after a call that may have logged; at
// most one fold in flight, the next one slotFoldMs after the last, so the moves of the
// cycles in between reach each key's row as one update. A fold that fails is tried again
// later (its rows stay logged: nothing is lost, the counters only lag); the slot-fold
// maintenance service folds what a member that died left behind. stop() folds what is
// left once.
export interface SlotFolderDeps {
  everyMs: number;
  /** Fold one task's logged moves (db/fold-slot-deltas.ts); returns the delta rows folded. */
  fold: (task: string) => Promise<number>;
  log: (m: string) => void;
}

/** sluice_fold_slots folds at most this many delta rows per call; a task that gave as
 *  many may have more. */
const FOLD_BATCH = 1000;

export class SlotFolder {
  private readonly dirty = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private errors = 0;
  private stopped = false;

  constructor(private readonly d: SlotFolderDeps) {}

  /** A claim or finish of `task` may have logged moves. */
  touched(task: string): void {
    if (this.stopped) return;
    this.dirty.add(task);
    this.schedule();
  }

  private schedule(): void {
    if (this.timer || this.running || this.stopped || this.dirty.size === 0) return;
    const delay = this.errors === 0 ? this.d.everyMs : Math.min(5000, this.d.everyMs * 2 ** Math.min(this.errors, 8));
    this.timer = setTimeout(() => {
      this.timer = null;
      this.running = this.foldDirty().finally(() => {
        this.running = null;
        this.schedule();
      });
    }, delay);
  }

  private async foldDirty(): Promise<void> {
    const tasks = [...this.dirty];
    this.dirty.clear();
    for (const task of tasks) {
      try {
        if ((await this.d.fold(task)) >= FOLD_BATCH) this.dirty.add(task);
        this.errors = 0;
      } catch (e) {
        this.errors++;
        this.dirty.add(task);
        if (this.errors === 1 || this.errors % 50 === 0) this.d.log(`slot counter fold for ${task} failed (kept for later): ${(e as Error).message}`);
      }
    }
  }

  /** Stops scheduling and folds what is left (once per task; a failure stays logged for
   *  the slot-fold service). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
    if (this.dirty.size > 0) await this.foldDirty();
  }
}
