// Enforces each task's DLQ limits (task definition `dlq.maxDepth`, `dlq.retentionDays`):
// the oldest dead letters beyond them are deleted in batches; every trim is counted,
// recorded in dlq_events (alert-worthy: dead letters went without an operator asking)
// and audited as the system, in the same transaction as its last batch. Also drops
// purge previews that expired a day ago.
import type pg from 'pg';
import { dlqSchema } from '../core/task-definition';
import { recordAudit, SYSTEM_ACTOR } from '../db/audit';
import { withTransaction, type Db } from '../db/pool';
import { deleteOldPurgePreviews } from '../db/purge-frozen-set';
import {
  depthBoundary,
  deadLetterLimitsByTask,
  recordDeadLetterEvent,
  trimBeyondBatch,
  trimExpiredBatch,
  type TrimmedBatch,
} from '../db/trim-dead-letters';

export const TRIM_BATCH = 5_000;
/** Per run, per task and kind: the rest waits for the next run (bounded work per tick). */
export const TRIM_MAX_PER_RUN = 200_000;

export interface TrimEvent {
  task: string;
  kind: 'retention' | 'max_depth';
  removed: number;
  limit: number;
}

export interface TrimSummary {
  events: TrimEvent[];
  removed: number;
  previewsDropped: number;
}

async function trimLoop(
  pool: Db,
  task: string,
  kind: TrimEvent['kind'],
  limit: number,
  batchFn: (c: pg.PoolClient) => Promise<TrimmedBatch>,
): Promise<TrimEvent | null> {
  let removed = 0;
  let oldest: Date | null = null;
  let newest: Date | null = null;
  for (;;) {
    const done = await withTransaction(pool, async (c) => {
      const b = await batchFn(c);
      removed += b.removed;
      if (b.oldest && (!oldest || b.oldest < oldest)) oldest = b.oldest;
      if (b.newest && (!newest || b.newest > newest)) newest = b.newest;
      const last = b.removed < TRIM_BATCH || removed >= TRIM_MAX_PER_RUN;
      if (last && removed > 0) {
        await recordDeadLetterEvent(c, { task, kind, removed, limitValue: limit, oldest, newest });
        await recordAudit(c, SYSTEM_ACTOR, {
          action: 'dlq.trim',
          targetType: 'task',
          targetId: task,
          meta: { kind, removed, limit, oldestDeadAt: oldest, newestDeadAt: newest },
        });
      }
      return last;
    });
    if (done) return removed > 0 ? { task, kind, removed, limit } : null;
  }
}

export async function trimDeadLetters(pool: Db): Promise<TrimSummary> {
  const defaults = dlqSchema.parse({});
  const events: TrimEvent[] = [];
  for (const lim of await deadLetterLimitsByTask(pool, defaults)) {
    const expired = await trimLoop(pool, lim.task, 'retention', lim.retentionDays, (c) => trimExpiredBatch(c, lim.task, lim.retentionDays, TRIM_BATCH));
    if (expired) events.push(expired);
    const boundary = await depthBoundary(pool, lim.task, lim.maxDepth);
    if (boundary) {
      const deep = await trimLoop(pool, lim.task, 'max_depth', lim.maxDepth, (c) => trimBeyondBatch(c, lim.task, boundary, TRIM_BATCH));
      if (deep) events.push(deep);
    }
  }
  const previewsDropped = await deleteOldPurgePreviews(pool, 24);
  return { events, removed: events.reduce((a, e) => a + e.removed, 0), previewsDropped };
}
