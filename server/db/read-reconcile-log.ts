// One task's recent reconciler repairs (reconcile_log, newest first), for the task
// drill-down: each row is a counter the engine kept wrong until the reconciler fixed it.
// reconcile_log is small (the retention service bounds it); filtered by task here.
import type { Db } from './pool';

export interface ReconcileRepairRow {
  at: Date;
  counter: string;
  partition: number | null;
  group_name: string | null;
  group_key: string | null;
  recorded: number;
  actual: number;
}

export async function readReconcileLog(db: Db, task: string, limit: number): Promise<ReconcileRepairRow[]> {
  const r = await db.query<ReconcileRepairRow>(
    `SELECT at, counter, partition, group_name, group_key, recorded, actual
     FROM reconcile_log WHERE task = $1 ORDER BY at DESC, id DESC LIMIT $2`,
    [task, limit],
  );
  return r.rows;
}
