// The port a coordinator's /metrics server listens on, recorded in its membership row
// once the server is up (the control plane links to it; bench and tests read it). One
// PK write.
import type { Db } from './pool';

export async function recordMetricsPort(db: Db, coordinatorId: string, port: number): Promise<void> {
  await db.query('UPDATE coordinators SET metrics_port = $2 WHERE id = $1', [coordinatorId, port]);
}
