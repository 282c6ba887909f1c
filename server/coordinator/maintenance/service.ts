// A maintenance service (River style): a name, an interval and one bounded unit of work
// run inside a transaction. The runner makes sure only one coordinator runs a given
// service at a time (pg_try_advisory_xact_lock) and at most once per interval across the
// cluster (maintenance_runs.last_started_at), and records duration, result and error.
import type pg from 'pg';

export interface MaintenanceContext {
  /** The transaction holding the service's advisory lock. */
  db: pg.PoolClient;
  /** For services that need to commit in steps (none do today). */
  pool: pg.Pool;
  coordinatorId: string;
  staleMs: number;
  log: (m: string) => void;
}

export interface MaintenanceService {
  name: string;
  /** Base interval; multiplied by the coordinator's maintenanceScale. */
  intervalMs: number;
  run(ctx: MaintenanceContext): Promise<Record<string, unknown>>;
}
