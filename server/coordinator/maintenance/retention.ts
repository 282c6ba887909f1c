// Retention (server/core/retention-policy.ts): succeeded, canceled and dead executions with
// their attempts, idempotency keys past the window, partition_owner_log, reconcile_log and task_breaker_events,
// metric samples, cancel previews. Runs in steps: every delete is one batch in its own
// short transaction (no task row or counter is touched), up to a time budget per run; what
// is left waits for the next run.
import type { MaintenanceService } from './service';
import { executionCutoffs, type RetentionSettings } from '../../core/retention-policy';
import { inBatches } from '../../core/batches';
import { clearExpiredIdempotencyKeys, deleteFinishedExecutionsBatch, deleteOldMetricSamples, readTaskRetentions, type FinishedState } from '../../db/delete-finished-executions';
import { deleteHistoryBatch } from '../../db/delete-history';
import { deleteOldCancelPreviews } from '../../db/cancel-frozen-set';

const BUDGET_MS = 20_000;

export function retention(s: RetentionSettings, samplesRetainMs: number): MaintenanceService {
  return {
    name: 'retention',
    intervalMs: 60_000,
    mode: 'steps',
    leaseMs: 2 * BUDGET_MS,
    async run({ db }) {
      const deadline = Date.now() + BUDGET_MS;
      const executions: Record<FinishedState, number> = { succeeded: 0, canceled: 0, dead: 0 };
      let complete = true;
      for (const { task, retention: own } of await readTaskRetentions(db)) {
        const c = executionCutoffs(s, own);
        const plan: [FinishedState, number][] = [['succeeded', c.succeededMs], ['canceled', c.canceledMs], ['dead', c.windowMs]];
        for (const [state, retainMs] of plan) {
          let from: Date | null = null; // each batch goes on from the last one's finished_at
          const r = await inBatches(async () => {
            const b = await deleteFinishedExecutionsBatch(db, task, state, retainMs, c.windowMs, s.batch, from);
            from = b.last;
            return b.n;
          }, s.batch, deadline);
          executions[state] += r.done;
          complete &&= r.exhausted;
        }
      }
      const windowMs = s.idempotencyWindowHours * 3_600_000;
      const keys = await inBatches(() => clearExpiredIdempotencyKeys(db, windowMs, s.batch), s.batch, deadline);
      const before = new Date(Date.now() - s.historyDays * 86_400_000);
      const ownerLog = await inBatches(() => deleteHistoryBatch(db, 'partition_owner_log', before, s.batch), s.batch, deadline);
      const reconcileLog = await inBatches(() => deleteHistoryBatch(db, 'reconcile_log', before, s.batch), s.batch, deadline);
      const breakerEvents = await inBatches(() => deleteHistoryBatch(db, 'task_breaker_events', before, s.batch), s.batch, deadline);
      complete &&= keys.exhausted && ownerLog.exhausted && reconcileLog.exhausted && breakerEvents.exhausted;
      return {
        executions,
        keysCleared: keys.done,
        partitionOwnerLog: ownerLog.done,
        reconcileLog: reconcileLog.done,
        breakerEvents: breakerEvents.done,
        samples: await deleteOldMetricSamples(db, samplesRetainMs),
        cancelPreviews: await deleteOldCancelPreviews(db, 24),
        complete,
      };
    },
  };
}
