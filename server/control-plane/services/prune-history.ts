// Control-plane job: retention of the control plane's history (server/core/retention-policy.ts):
// dlq_events, resolved alerts with their events, delivered/failed webhook deliveries and
// finished DLQ replay jobs after SLUICE_RETAIN_HISTORY_DAYS, audit_log after
// SLUICE_RETAIN_AUDIT_DAYS. Oldest first, one small batch per statement, up to a time
// budget per run.
import type { ControlPlaneService } from '../service';
import { inBatches } from '../../core/batches';
import { resolveRetention, type RetentionSettings } from '../../core/retention-policy';
import { deleteHistoryBatch, type HistoryTable } from '../../db/delete-history';

const BUDGET_MS = 20_000;
const DAY = 86_400_000;

export function pruneHistory(settings: () => RetentionSettings): ControlPlaneService {
  return {
    name: 'prune-history',
    intervalMs: 5 * 60_000,
    mode: 'steps',
    leaseMs: 2 * BUDGET_MS,
    async run(ctx) {
      const s = settings();
      const deadline = Date.now() + BUDGET_MS;
      const now = ctx.now.getTime();
      const plan: [HistoryTable, number][] = [
        ['dlq_events', s.historyDays],
        ['alerts', s.historyDays],
        ['webhook_deliveries', s.historyDays],
        ['dlq_replay_jobs', s.historyDays],
        ['audit_log', s.auditDays],
      ];
      const deleted: Partial<Record<HistoryTable, number>> = {};
      let complete = true;
      for (const [table, days] of plan) {
        const r = await inBatches(() => deleteHistoryBatch(ctx.pool, table, new Date(now - days * DAY), s.batch), s.batch, deadline);
        deleted[table] = r.done;
        complete &&= r.exhausted;
      }
      return { deleted, complete };
    },
  };
}

/** With the settings of this process's environment, read at each run (a bad value fails the run, naming the variable). */
export const pruneHistoryService = pruneHistory(() => resolveRetention({}, process.env));
