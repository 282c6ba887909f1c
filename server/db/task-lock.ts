// The task lock: the task_runtime row FOR NO KEY UPDATE, which every claim and finish of the
// task takes first (docs/architecture.md § lock order). Writers outside the engine's
// functions that must not interleave with a claim (cancel, run-now, a breaker trip) take it
// the same way, first among the task's rows.
import type { Db } from './pool';

/** Locks the task's runtime row until the caller's transaction ends; false when the task has none. */
export async function lockTask(db: Db, task: string): Promise<boolean> {
  const r = await db.query('SELECT 1 FROM task_runtime WHERE task = $1 FOR NO KEY UPDATE', [task]);
  return (r.rowCount ?? 0) > 0;
}
