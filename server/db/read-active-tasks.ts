// The tasks of the current config with their stored definition (thresholds, routing,
// groups) from task_runtime, with the task's running count from task_counters: one row per
// task, a handful of rows.
import type { Db } from './pool';

export interface ActiveTaskRow {
  task: string;
  definition: unknown;
  partitions: number;
  concurrency: number;
  in_flight: number;
  paused: boolean;
  config_version: number;
}

export async function readActiveTasks(db: Db): Promise<ActiveTaskRow[]> {
  const r = await db.query<ActiveTaskRow>(
    `SELECT t.task, t.definition, t.partitions, t.concurrency, coalesce(c.in_flight, 0) AS in_flight, t.paused, t.config_version
     FROM task_runtime t LEFT JOIN task_counters c ON c.task = t.task WHERE t.active ORDER BY t.task`,
  );
  return r.rows;
}
