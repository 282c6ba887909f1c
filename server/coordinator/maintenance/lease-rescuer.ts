// Lease rescuer: running executions whose lease expired or whose coordinator is gone go
// back through sluice_finish as a failed attempt ("lease expired"): retried with backoff
// or dead-lettered at maxAttempts. Tasks are handled in name order (the task lock order).
import type { MaintenanceService } from './service';
import { findExpiredLeases } from '../../db/rescue-expired-leases';
import { finishExecutions, type FinishItem } from '../../db/finish-executions';
import { decideFailure } from '../../core/backoff';
import { errorFingerprint } from '../../core/fingerprint';
import type { TaskDefinition } from '../../core/task-definition';

export const leaseRescuer: MaintenanceService = {
  name: 'lease-rescuer',
  intervalMs: 1000,
  // Its read walks the running index, which under a held snapshot keeps an entry for every
  // execution run since (88 ms a read 30 s into bench:soak's hold, where maintenance runs at
  // 4× pace: a third of a core). Paced by its cost, a rescue comes at most 10 × the last
  // read after the previous one (≥ the interval; leases are seconds long).
  paceFactor: 10,
  async run({ db, staleMs }) {
    const expired = await findExpiredLeases(db, staleMs);
    if (expired.length === 0) return { rescued: 0 };
    const tasks = [...new Set(expired.map((e) => e.task))].sort();
    const defs = await db.query<{ task: string; definition: TaskDefinition }>('SELECT task, definition FROM task_runtime WHERE task = ANY ($1)', [tasks]);
    const byTask = new Map(defs.rows.map((r) => [r.task, r.definition]));
    let rescued = 0;
    let dead = 0;
    for (const task of tasks) {
      const def = byTask.get(task);
      const now = Date.now();
      const items: FinishItem[] = expired
        .filter((e) => e.task === task)
        .map((e) => {
          const message = e.ownerGone
            ? `lease lost: coordinator ${e.leaseOwner ?? '?'} stopped heartbeating during attempt ${e.attempts}`
            : `lease expired during attempt ${e.attempts} (timeout plus grace passed without a completion)`;
          const outcome = def ? decideFailure(def.retry, Math.max(1, e.attempts), now, Math.random) : ({ kind: 'retry', runAt: now } as const);
          return {
            id: e.id,
            leaseToken: e.leaseToken,
            outcome: outcome.kind,
            ...(outcome.kind === 'retry' ? { runAt: new Date(outcome.runAt) } : {}),
            error: message,
            fingerprint: errorFingerprint({ name: 'LeaseExpired', message: 'lease expired' }),
          };
        });
      const applied = await finishExecutions(db, task, items, { onlyExpired: true, staleMs });
      rescued += applied.size;
      dead += [...applied.values()].filter((o) => o === 'dead').length;
    }
    return { rescued, dead };
  },
};
