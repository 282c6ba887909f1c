// The Coordinators page: every registered member with its liveness (judged by the
// database clock, like ownership is), the partitions it owns, its slots, and which
// config version it runs next to the one it should run — plus the rollout of the latest
// version: "rolling out" until every live coordinator has applied it, with how long
// each took from commit to applied. One scan of coordinators (a handful of rows), one
// grouped scan of partition_owners by owner, one PK read of the latest version.
import type pg from 'pg';
import { coordinatorStatus, DEFAULT_STALE_MS, staleMsOf } from '../db/coordinator-liveness';

type Db = pg.Pool | pg.PoolClient;

/**
 * The stale threshold for members that did not write their own (rows from before
 * coordinators.stale_ms): each member is judged by the threshold it runs with, by the one
 * predicate in server/db/coordinator-liveness.ts, so this page, the Overview and
 * ownership agree on who is live.
 */
export const COORDINATOR_STALE_MS = DEFAULT_STALE_MS;

export interface CoordinatorView {
  id: string;
  name: string;
  host: string;
  pid: number;
  tasks: string[];
  startedAt: Date;
  lastHeartbeatAt: Date;
  heartbeatAgeMs: number;
  status: 'live' | 'draining' | 'stale' | 'stopped';
  /** This member's own timings (null: registered before they were recorded; the defaults apply). */
  timings: { heartbeatMs: number | null; staleMs: number; leaseGraceMs: number | null };
  slots: number;
  inFlight: number;
  ownedPartitions: number;
  ownedByTask: { task: string; partitions: number[] }[];
  appliedVersion: number | null;
  appliedAt: Date | null;
  applyMs: number | null;
  applyError: string | null;
  /** commit of the applied version → applied_at, when this member applied the latest version
   *  and was already running at that commit */
  pushLatencyMs: number | null;
  onLatest: boolean;
}

export interface Rollout {
  version: number;
  createdAt: Date;
  author: string;
  message: string;
  live: number;
  applied: number;
  /** live members that have not applied it yet */
  pending: string[];
  /** live members whose last apply failed */
  failed: { name: string; error: string }[];
  rollingOut: boolean;
  /** slowest commit → applied among the live members that applied it */
  maxPushLatencyMs: number | null;
}

export interface CoordinatorsPage {
  staleAfterMs: number;
  rollout: Rollout | null;
  coordinators: CoordinatorView[];
}

interface Row {
  id: string;
  name: string;
  host: string;
  pid: number;
  tasks: string[];
  started_at: Date;
  last_heartbeat_at: Date;
  age_ms: number;
  status: CoordinatorView['status'];
  heartbeat_ms: number | null;
  stale_ms: number;
  lease_grace_ms: number | null;
  stopped: boolean;
  draining: boolean;
  slots: number;
  in_flight: number;
  applied_version: number | null;
  applied_at: Date | null;
  apply_ms: number | null;
  apply_error: string | null;
  push_ms: number | null;
}

export async function listCoordinators(db: Db): Promise<CoordinatorsPage> {
  const latest = await db.query<{ version: number; created_at: Date; author: string; message: string }>(
    'SELECT version, created_at, author, message FROM config_versions ORDER BY version DESC LIMIT 1',
  );
  const v = latest.rows[0] ?? null;
  const rows = await db.query<Row>(
    `SELECT c.id, c.name, c.host, c.pid, c.tasks, c.started_at, c.last_heartbeat_at,
            (extract(epoch FROM (now() - c.last_heartbeat_at)) * 1000)::float8 AS age_ms,
            ${coordinatorStatus('c')} AS status, c.heartbeat_ms, ${staleMsOf('c')} AS stale_ms, c.lease_grace_ms,
            c.stopped_at IS NOT NULL AS stopped, c.draining, c.slots, c.in_flight,
            c.applied_version, c.applied_at, c.apply_ms, c.apply_error,
            -- Push latency only means something for a member that was running when the
            -- version was committed (one started later applied it at start-up).
            CASE WHEN c.started_at <= cv.created_at
                 THEN (extract(epoch FROM (c.applied_at - cv.created_at)) * 1000)::float8 END AS push_ms
     FROM coordinators c
     LEFT JOIN config_versions cv ON cv.version = c.applied_version
     ORDER BY c.stopped_at IS NOT NULL, c.name, c.started_at`,
  );
  const owned = await db.query<{ owner: string; task: string; partitions: number[] }>(
    `SELECT owner::text AS owner, task, array_agg(partition ORDER BY partition) AS partitions
     FROM partition_owners WHERE owner IS NOT NULL GROUP BY owner, task ORDER BY owner, task`,
  );
  const ownedBy = new Map<string, { task: string; partitions: number[] }[]>();
  for (const o of owned.rows) {
    const list = ownedBy.get(o.owner) ?? [];
    list.push({ task: o.task, partitions: o.partitions });
    ownedBy.set(o.owner, list);
  }

  const coordinators: CoordinatorView[] = rows.rows.map((r) => {
    const status = r.status;
    const byTask = ownedBy.get(r.id) ?? [];
    const onLatest = v !== null && r.applied_version === v.version;
    return {
      id: r.id,
      name: r.name,
      host: r.host,
      pid: r.pid,
      tasks: r.tasks,
      startedAt: r.started_at,
      lastHeartbeatAt: r.last_heartbeat_at,
      heartbeatAgeMs: Math.max(0, Math.round(r.age_ms)),
      status,
      timings: { heartbeatMs: r.heartbeat_ms, staleMs: r.stale_ms, leaseGraceMs: r.lease_grace_ms },
      slots: r.slots,
      inFlight: r.in_flight,
      ownedPartitions: byTask.reduce((s, t) => s + t.partitions.length, 0),
      ownedByTask: byTask,
      appliedVersion: r.applied_version,
      appliedAt: r.applied_at,
      applyMs: r.apply_ms,
      applyError: r.apply_error,
      pushLatencyMs: onLatest && r.push_ms !== null ? Math.max(0, Math.round(r.push_ms)) : null,
      onLatest,
    };
  });

  let rollout: Rollout | null = null;
  if (v) {
    // Draining members still run and still apply config; only stale/stopped ones are out.
    const live = coordinators.filter((c) => c.status === 'live' || c.status === 'draining');
    const applied = live.filter((c) => c.onLatest);
    const latencies = applied.map((c) => c.pushLatencyMs).filter((x): x is number => x !== null);
    rollout = {
      version: v.version,
      createdAt: v.created_at,
      author: v.author,
      message: v.message,
      live: live.length,
      applied: applied.length,
      pending: live.filter((c) => !c.onLatest).map((c) => c.name),
      failed: live.filter((c) => c.applyError !== null).map((c) => ({ name: c.name, error: c.applyError! })),
      rollingOut: applied.length < live.length,
      maxPushLatencyMs: latencies.length ? Math.max(...latencies) : null,
    };
  }
  return { staleAfterMs: COORDINATOR_STALE_MS, rollout, coordinators };
}
