// An operator resets a task's circuit breaker (issue 23): closed now, its window emptied,
// in one transaction with the row locked, an event (who, from which state) that notifies
// every coordinator (sluice_breaker), and the audit record. The coordinators' own writes
// (outcomes, probe slots) are in server/coordinator/breaker-store.ts.
import { fromStored, reset, toStored, type Breaker } from '../core/circuit-breaker';
import { CoreError } from '../core/errors';
import { recordAudit, type Actor } from '../db/audit';
import { withTransaction, type Db } from '../db/pool';
import { lockBreaker, saveBreaker } from '../db/task-breakers';

export async function resetBreaker(db: Db, actor: Actor, task: string): Promise<{ from: Breaker['state'] }> {
  return withTransaction(db, async (c) => {
    const exists = await c.query(`SELECT 1 FROM task_runtime WHERE task = $1 AND active`, [task]);
    if (exists.rowCount === 0) throw CoreError.notFound(`task "${task}"`);
    const row = await lockBreaker(c, task);
    const r = reset(fromStored(row), row.nowMs, actor.label);
    await saveBreaker(c, task, toStored(row, r.breaker, [r.transition]), [r.transition], actor.label);
    await recordAudit(c, actor, {
      action: 'task.breaker.reset',
      targetType: 'task',
      targetId: task,
      before: { state: row.state, since: new Date(row.sinceMs).toISOString(), reason: row.reason },
      after: { state: 'closed' },
    });
    return { from: row.state };
  });
}
