// Fleet health rules: what the engine records about its own machinery — coordinators,
// partition ownership, config rollout, maintenance services, the reconciler, the DLQ and
// Postgres — turned into alert observations with evidence and a remedy, like the task
// rules (alert-observation.ts). The evaluator reads the inputs in one round trip
// (server/db/read-fleet-health.ts). Fleet-wide alerts have task '' and a subject (the
// coordinator, the service, the database); the task-scoped ones name their task.
// Pure: no I/O imports (server/core rule).
import type { AlertRuleTiming } from './alert-rules';
import { alertKey, thresholdBreach, type AlertPolicy, type AlertRule, type AlertSeverity } from './alert-evaluation';
import type { ThresholdPair } from './thresholds';
import { inProgressEpisode, isOpenEpisode, type EpisodeView, type Observation } from './alert-observation';

export interface FleetPolicy {
  /** Partitions without a live owner, or a coordinator behind on config, this long before firing. */
  forMs: number;
  /** Connections in use ÷ max_connections. */
  connections: ThresholdPair;
  /** Age of the oldest transaction holding a snapshot (pins the vacuum horizon), ms. */
  vacuumHorizonMs: ThresholdPair;
  /** executions dead tuples ÷ (live + dead), judged only past `deadTuplesFloor` dead tuples. */
  deadTuples: ThresholdPair;
  deadTuplesFloor: number;
  /** Reconciler repairs of one task within `reconcileWindowMs` (each repair is an engine bug signal). */
  reconcileRepairs: ThresholdPair;
  reconcileWindowMs: number;
  /** DLQ depth ÷ maxDepth (a trim by maxDepth in the window is critical whatever the ratio). */
  dlqFullness: ThresholdPair;
  /** A maintenance service not finished for this many intervals is failing. */
  missedIntervals: number;
}

export const DEFAULT_FLEET_POLICY: FleetPolicy = {
  forMs: 30_000,
  connections: { warning: 0.8, critical: 0.95 },
  vacuumHorizonMs: { warning: 5 * 60_000, critical: 30 * 60_000 },
  deadTuples: { warning: 0.2, critical: 0.5 },
  deadTuplesFloor: 10_000,
  reconcileRepairs: { warning: 2, critical: 10 },
  reconcileWindowMs: 60 * 60_000,
  dlqFullness: { warning: 0.9, critical: 1 },
  missedIntervals: 3,
};

export interface FleetCoordinator {
  id: string;
  name: string;
  host: string;
  tasks: string[];
  status: 'live' | 'draining' | 'stale' | 'stopped';
  /** Stopped heartbeating without saying goodbye: stale now, or stopped by the stale-member cleanup. */
  unclean: boolean;
  heartbeatAgeMs: number;
  staleMs: number;
  startedAt: number;
  lastHeartbeatAt: number;
  appliedVersion: number | null;
  applyError: string | null;
  /** ms since the member applied its current version (or registered, if it never did) */
  sinceAppliedMs: number;
}

export interface FleetInputs {
  coordinators: FleetCoordinator[];
  desiredVersion: number | null;
  /** Per active task: its partition count and the partitions without a live owner. */
  ownership: { task: string; partitions: number; unowned: number[] }[];
  maintenance: { name: string; intervalMs: number | null; sinceFinishedMs: number | null; sinceStartedMs: number | null; lastError: string | null; runs: number }[];
  reconcile: { task: string; repairs: number; recent: { at: string; counter: string; partition: number | null; recorded: number; actual: number }[] }[];
  dlq: { task: string; depth: number; maxDepth: number; trimmed: number }[];
  database: { connections: number; maxConnections: number; oldestSnapshotMs: number; executionsLive: number; executionsDead: number };
}

const FLEET = '';

function severityOf(value: number, t: ThresholdPair): AlertSeverity {
  return value > t.critical ? 'critical' : 'warning';
}

/** Whether two coordinators serve a task in common ([] = every task). */
function overlaps(a: readonly string[], b: readonly string[]): boolean {
  return a.length === 0 || b.length === 0 || a.some((t) => b.includes(t));
}

export const FLEET_REMEDY: Record<Extract<AlertRule, 'coordinatorStale' | 'unownedPartitions' | 'configBehind' | 'maintenanceFailing' | 'reconcileRepairs' | 'dlqNearFull' | 'dbConnections' | 'vacuumHorizon' | 'deadTuples'>, string> = {
  coordinatorStale:
    'A coordinator stopped heartbeating without shutting down (crash, kill -9, network partition) and nothing has replaced it: restart it or start another for its tasks. Its partitions move to the live members once it is stale; its leases are rescued after they expire.',
  unownedPartitions:
    'No live coordinator owns these partitions, so nothing claims their executions: start a coordinator that serves the task (or add the task to a running one), and check the Coordinators page for stale or draining members.',
  configBehind:
    'This coordinator has not applied the latest config version (or failed to): read its apply error on the Coordinators page, fix the config and push again, or restart the member.',
  maintenanceFailing:
    'A maintenance service fails or has not run for three of its intervals: read its last error (sluice_control_plane_service_* on /metrics, maintenance_runs), and make sure a coordinator or the control plane that runs it is up.',
  reconcileRepairs:
    'The reconciler keeps correcting counters that drifted from the executions: an engine bug (or manual SQL on executions). The repairs are listed on the task page; report them with the versions in use.',
  dlqNearFull:
    'The dead-letter queue is close to its maxDepth (or already trimming the oldest): replay or purge by error fingerprint, fix the cause, or raise dlq.maxDepth.',
  dbConnections:
    'Postgres is near max_connections: lower the pool sizes of coordinators and the control plane, put PgBouncer in front (docs/operators.md), or raise max_connections.',
  vacuumHorizon:
    'A long transaction holds the oldest snapshot, so vacuum keeps every dead row newer than it: find it in pg_stat_activity (xact_start, backend_xmin) and end it; long reports belong on a replica.',
  deadTuples:
    'The executions table is mostly dead rows: vacuum is behind (a held snapshot, or autovacuum too slow for the churn). Check the vacuum-horizon alert, then tune autovacuum for executions. Where the server runs with autovacuum = off, the coordinators\' vacuum service does its work: check that a coordinator with maintenance runs and that its last vacuum run (maintenance_runs, name vacuum) succeeded.',
};

/** Pure: the fleet's observations, given the latest episode of each key. */
export function observeFleet(f: FleetInputs, latest: ReadonlyMap<string, EpisodeView>, policy: AlertPolicy, fleet: FleetPolicy = DEFAULT_FLEET_POLICY): Observation[] {
  const timing: AlertRuleTiming = { forMs: fleet.forMs, clearForMs: policy.clearForMs };
  const out: Observation[] = [];
  const push = (
    rule: keyof typeof FLEET_REMEDY,
    task: string,
    subject: string,
    breaching: boolean,
    value: number | null,
    severity: AlertSeverity,
    threshold: number | null,
    evidence: Record<string, unknown>,
  ) => {
    const key = alertKey(task, rule, subject);
    if (!breaching && !inProgressEpisode(latest.get(key))) return;
    out.push({ key, task, rule, subject, partition: null, groupName: null, groupKey: null, severity, threshold, remedy: FLEET_REMEDY[rule], breaching, value, evidence, timing });
  };
  const open = (task: string, rule: AlertRule, subject = '') => isOpenEpisode(latest.get(alertKey(task, rule, subject)));
  const live = f.coordinators.filter((c) => c.status === 'live' || c.status === 'draining');

  // A coordinator gone without a goodbye, until a live one that joined after it serves its tasks.
  for (const c of f.coordinators) {
    const replacedBy = live.find((l) => l.startedAt > c.lastHeartbeatAt && overlaps(l.tasks, c.tasks));
    const breaching = c.unclean && replacedBy === undefined;
    push('coordinatorStale', FLEET, `${c.name}@${c.host}`, breaching, c.heartbeatAgeMs, 'critical', c.staleMs, {
      coordinator: c.id, name: c.name, host: c.host, tasks: c.tasks, status: c.status, heartbeatAgeMs: c.heartbeatAgeMs,
      staleMs: c.staleMs, lastHeartbeatAt: new Date(c.lastHeartbeatAt).toISOString(), replacedBy: replacedBy?.name ?? null, liveCoordinators: live.map((l) => l.name),
    });
  }

  // Partitions nobody live owns (for fleet.forMs before it fires). Judged once the fleet
  // has any coordinator on record: a database nobody has started a coordinator against
  // yet is being set up (the Overview strip says "0 coordinators"), not failing.
  for (const o of f.coordinators.length > 0 ? f.ownership : []) {
    const n = o.unowned.length;
    push('unownedPartitions', o.task, '', n > 0, n, n >= o.partitions ? 'critical' : 'warning', 0, {
      unowned: o.unowned.slice(0, 64), unownedCount: n, partitions: o.partitions, liveCoordinators: live.filter((l) => l.tasks.length === 0 || l.tasks.includes(o.task)).map((l) => l.name),
    });
  }

  // Live members behind the desired config version, or failing to apply it.
  for (const c of live) {
    const behind = f.desiredVersion !== null && (c.appliedVersion === null || c.appliedVersion < f.desiredVersion);
    push('configBehind', FLEET, `${c.name}@${c.host}`, behind || c.applyError !== null, f.desiredVersion === null ? null : f.desiredVersion - (c.appliedVersion ?? 0),
      c.applyError !== null ? 'critical' : 'warning', 0, {
        coordinator: c.id, appliedVersion: c.appliedVersion, desiredVersion: f.desiredVersion, applyError: c.applyError, sinceAppliedMs: c.sinceAppliedMs,
      });
  }

  // Maintenance services: failing, or not finished within missedIntervals × interval.
  for (const m of f.maintenance) {
    const overdue = m.intervalMs !== null && m.runs > 0 && (m.sinceFinishedMs === null || m.sinceFinishedMs > fleet.missedIntervals * m.intervalMs);
    push('maintenanceFailing', FLEET, m.name, m.lastError !== null || overdue, m.sinceFinishedMs, m.lastError !== null ? 'critical' : 'warning',
      m.intervalMs === null ? null : fleet.missedIntervals * m.intervalMs, {
        service: m.name, lastError: m.lastError, intervalMs: m.intervalMs, sinceFinishedMs: m.sinceFinishedMs, sinceStartedMs: m.sinceStartedMs, runs: m.runs, missedIntervals: fleet.missedIntervals,
      });
  }

  // The reconciler repairing drift again and again.
  for (const r of f.reconcile) {
    const v = thresholdBreach(r.repairs, fleet.reconcileRepairs, open(r.task, 'reconcileRepairs'), policy.hysteresis);
    push('reconcileRepairs', r.task, '', v.breaching, r.repairs, v.severity, fleet.reconcileRepairs.warning, {
      repairs: r.repairs, windowMs: fleet.reconcileWindowMs, recent: r.recent, warning: fleet.reconcileRepairs.warning, critical: fleet.reconcileRepairs.critical,
    });
  }

  // The DLQ near its maxDepth, or trimming by it.
  for (const d of f.dlq) {
    const ratio = d.maxDepth > 0 ? d.depth / d.maxDepth : 0;
    const v = thresholdBreach(ratio, fleet.dlqFullness, open(d.task, 'dlqNearFull'), policy.hysteresis);
    // ratio ≥ warning (within 10 % of maxDepth) counts, not only strictly above
    const near = v.breaching || ratio >= fleet.dlqFullness.warning;
    push('dlqNearFull', d.task, '', near || d.trimmed > 0, ratio, d.trimmed > 0 || ratio >= fleet.dlqFullness.critical ? 'critical' : 'warning', fleet.dlqFullness.warning, {
      depth: d.depth, maxDepth: d.maxDepth, trimmedInWindow: d.trimmed, windowMs: policy.windowMs,
    });
  }

  // Postgres.
  const db = f.database;
  const conn = db.maxConnections > 0 ? db.connections / db.maxConnections : null;
  const cv = thresholdBreach(conn, fleet.connections, open(FLEET, 'dbConnections', 'postgres'), policy.hysteresis);
  push('dbConnections', FLEET, 'postgres', cv.breaching, conn, cv.severity, fleet.connections.warning, { connections: db.connections, maxConnections: db.maxConnections });

  const hv = thresholdBreach(db.oldestSnapshotMs, fleet.vacuumHorizonMs, open(FLEET, 'vacuumHorizon', 'postgres'), policy.hysteresis);
  push('vacuumHorizon', FLEET, 'postgres', hv.breaching, db.oldestSnapshotMs, hv.breaching ? severityOf(db.oldestSnapshotMs, fleet.vacuumHorizonMs) : 'warning', fleet.vacuumHorizonMs.warning, {
    oldestSnapshotMs: db.oldestSnapshotMs, warning: fleet.vacuumHorizonMs.warning, critical: fleet.vacuumHorizonMs.critical,
  });

  const total = db.executionsLive + db.executionsDead;
  const dead = db.executionsDead >= fleet.deadTuplesFloor && total > 0 ? db.executionsDead / total : null;
  const dv = thresholdBreach(dead, fleet.deadTuples, open(FLEET, 'deadTuples', 'executions'), policy.hysteresis);
  push('deadTuples', FLEET, 'executions', dv.breaching, dead, dv.severity, fleet.deadTuples.warning, {
    live: db.executionsLive, dead: db.executionsDead, floor: fleet.deadTuplesFloor, warning: fleet.deadTuples.warning, critical: fleet.deadTuples.critical,
  });
  return out;
}
