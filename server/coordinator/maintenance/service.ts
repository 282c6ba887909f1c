// A coordinator maintenance service (River style): a name, an interval and one bounded
// unit of work, run by the one maintenance runner (server/db/maintenance-runner.ts), which
// makes sure only one process runs a given service at a time and at most once per interval
// across the cluster, and records duration, result and error. Coordinator services also get
// the coordinator's id and staleness threshold.
import type { MaintenanceService as Service, RunnerBase, ServiceContext } from '../../db/maintenance-runner';

export interface CoordinatorBase extends RunnerBase {
  coordinatorId: string;
  staleMs: number;
}

export type MaintenanceContext = ServiceContext<CoordinatorBase>;
export type MaintenanceService = Service<CoordinatorBase>;
