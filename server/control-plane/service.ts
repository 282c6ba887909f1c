// A control-plane job (alert evaluator, roll-ups, webhook delivery, DLQ replay, …): a
// name, an interval and a `run`, run by the one maintenance runner
// (server/db/maintenance-runner.ts) like the coordinators' services. Jobs commit as they
// go ('steps': the runner's lease keeps other control-plane processes out while one runs)
// and are recorded in maintenance_runs under 'cp:<name>'.
import type { MaintenanceService, RunnerBase, ServiceContext as Ctx } from '../db/maintenance-runner';

export type ServiceContext = Ctx<RunnerBase>;
export type ControlPlaneService = MaintenanceService<RunnerBase>;

/** Row-name prefix of control-plane jobs in maintenance_runs (read-control-plane-gauges.ts). */
export const CONTROL_PLANE_NAMESPACE = 'cp:';
