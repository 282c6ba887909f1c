// Open alerts (firing or acknowledged) per task and severity, for the Overview cards.
// Reads the partial unique index alerts_open_key's rows only: open episodes are few.
import type { Db } from './pool';

export interface OpenAlertCountRow {
  task: string;
  severity: 'warning' | 'critical';
  status: 'firing' | 'acknowledged';
  n: number;
}

export async function readOpenAlertCounts(db: Db): Promise<OpenAlertCountRow[]> {
  const r = await db.query<OpenAlertCountRow>(
    `SELECT task, severity, status, count(*)::int AS n FROM alerts
     WHERE status IN ('firing', 'acknowledged') GROUP BY task, severity, status`,
  );
  return r.rows;
}
