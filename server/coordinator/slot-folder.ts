// Folds this member's logged slot counter moves (slot_deltas) into group_slots, outside the
// task lock and off the claim's path: the claims and finishes of a grouped task append
// their per-key moves instead of updating a counter row per key under the lock
// (sluice_fold_slots.sql says why). touched(task) after a call that may have logged; at
// most one fold in flight, the next one slotFoldMs after the last, so the moves of the
// cycles in between reach each key's row as one update. A fold that fails is tried again
// later (its rows stay logged: nothing is lost, the counters only lag); the slot-fold
// maintenance service folds what a member that died left behind. stop() folds what is
// left once.
//
// Paced by its own cost: the next fold waits at least FOLD_PACE × the last one's duration
// (at most MAX_PACE_MS), so folding takes at most ~1/41 of a member's time with the
// database (m members folding one task: about m/41 of a backend). A fold updates the same
// key rows each time, and while a snapshot is held none of their old versions can be
// pruned, so every fold walks longer version chains: in
// bench:soak's held minute (2026-12-02) folds took 43 ms each, 14 a second across three
// members, 12.5 s of database time in 20 s — a third of the 2-core machine taken from the
// claims. Folding less often there also makes each fold cheaper (fewer versions per key).
// At 15 × (until 2026-12-07) three members still folded 3.4 times a second in that minute,
// 60 ms each: 20% of a core of the two.
export interface SlotFolderDeps {
  everyMs: number;
  /** Fold one task's logged moves (db/fold-slot-deltas.ts); returns the delta rows folded. */
  fold: (task: string) => Promise<number>;
  log: (m: string) => void;
}

/** sluice_fold_slots folds at most this many delta rows per call; a task that gave as
 *  many may have more. */
const FOLD_BATCH = 1000;
/** The next fold waits at least this many times the last fold's duration … */
const FOLD_PACE = 40;
/** … but never more than this (the counters then lag by at most about that much). */
const MAX_PACE_MS = 2000;

export class SlotFolder {
  private readonly dirty = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private errors = 0;
  private stopped = false;
  private lastMs = 0;

  constructor(private readonly d: SlotFolderDeps) {}

  /** A claim or finish of `task` may have logged moves. */
  touched(task: string): void {
    if (this.stopped) return;
    this.dirty.add(task);
    this.schedule();
  }

  private schedule(): void {
    if (this.timer || this.running || this.stopped || this.dirty.size === 0) return;
    const paced = Math.max(this.d.everyMs, Math.min(MAX_PACE_MS, FOLD_PACE * this.lastMs));
    const delay = this.errors === 0 ? paced : Math.min(5000, paced * 2 ** Math.min(this.errors, 8));
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
    const t0 = Date.now();
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
    this.lastMs = Date.now() - t0;
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
