// The tasks of the current config with their stored definition (thresholds, routing,
// groups) from task_runtime: one row per task, a handful of rows.
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
    `SELECT task, definition, partitions, concurrency, in_flight, paused, config_version
     FROM task_runtime WHERE active ORDER BY task`,
  );
  return r.rows;
}
