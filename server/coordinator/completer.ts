// Batches finished executions (succeeded / retry / dead / release) per task and writes
// each batch with one sluice_finish call (one round trip, one commit). A batch goes
// out after flushMs or as soon as it reaches maxBatch; a failed write is retried on the
// next flush (the rows stay running with their lease, so nothing is lost — if the lease
// runs out first the rescuer takes over and the late write is fenced).
import type pg from 'pg';
import { finishExecutions, type FinishItem, type FinishOutcome } from '../db/finish-executions';

export interface CompletedBatch {
  task: string;
  items: FinishItem[];
  applied: Map<number, FinishOutcome>;
}

export class Completer {
  private buffers = new Map<string, FinishItem[]>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> | null = null;

  constructor(
    private readonly pool: pg.Pool,
    private readonly flushMs: number,
    private readonly onFlushed: (b: CompletedBatch) => void,
    private readonly log: (m: string) => void,
    private readonly maxBatch = 500,
  ) {}

  add(task: string, item: FinishItem): void {
    let b = this.buffers.get(task);
    if (!b) this.buffers.set(task, (b = []));
    b.push(item);
    if (b.length >= this.maxBatch) void this.flush();
    else this.schedule();
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
    await Promise.all(
      batches.map(async ([task, items]) => {
        try {
          const applied = await finishExecutions(this.pool, task, items);
          this.onFlushed({ task, items, applied });
        } catch (e) {
          this.log(`finish batch for ${task} failed (${items.length} kept for retry): ${(e as Error).message}`);
          const b = this.buffers.get(task) ?? [];
          this.buffers.set(task, [...items, ...b]);
          this.schedule();
        }
      }),
    );
  }

  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    for (let i = 0; i < 5 && this.pending() > 0; i++) {
      await this.flush();
      if (this.pending() > 0) await new Promise((r) => setTimeout(r, 100));
    }
  }
}
