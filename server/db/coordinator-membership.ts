// Coordinator membership: register, heartbeat, drain/stop, record the applied config
// version, list live members, and (maintenance) mark stale members stopped. Liveness is
// judged by the database clock (now() − last_heartbeat_at), never by a process's clock.
// All single-row PK writes except liveMembers (a scan of the partial live index).
import type { Db } from './pool';

export interface RegisterInput {
  name: string;
  host: string;
  pid: number;
  tasks: string[];
  slots: number;
  metricsPort: number | null;
  /** This member's timings (server/core/coordinator-timings.ts), shown by the console and
   *  used to judge its liveness (server/db/coordinator-liveness.ts); null: the defaults. */
  timings?: { heartbeatMs: number; staleMs: number; leaseGraceMs: number };
}

export async function registerCoordinator(db: Db, c: RegisterInput): Promise<string> {
  const r = await db.query<{ id: string }>(
    `INSERT INTO coordinators (name, host, pid, tasks, slots, metrics_port, heartbeat_ms, stale_ms, lease_grace_ms)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id`,
    [c.name, c.host, c.pid, c.tasks, c.slots, c.metricsPort, c.timings?.heartbeatMs ?? null, c.timings?.staleMs ?? null, c.timings?.leaseGraceMs ?? null],
  );
  return r.rows[0]!.id;
}

/** Beats; a member that maintenance had declared stale rejoins (stopped_at cleared). */
export async function heartbeat(db: Db, id: string, inFlight: number): Promise<{ rejoined: boolean }> {
  const r = await db.query<{ rejoined: boolean }>(
    `UPDATE coordinators c SET last_heartbeat_at = now(), in_flight = $2, stopped_at = NULL
     FROM (SELECT stopped_at IS NOT NULL AS rejoined FROM coordinators WHERE id = $1) old
     WHERE c.id = $1 AND NOT c.draining RETURNING old.rejoined`,
    [id, inFlight],
  );
  return { rejoined: r.rows[0]?.rejoined ?? false };
}

/**
 * A draining member's heartbeat: it stays visibly alive, so the lease rescuer leaves the
 * work it is still finishing alone, but it does not rejoin (draining stays set, and
 * ownership ignores draining members).
 */
export async function drainingHeartbeat(db: Db, id: string, inFlight: number): Promise<void> {
  await db.query('UPDATE coordinators SET last_heartbeat_at = now(), in_flight = $2 WHERE id = $1 AND stopped_at IS NULL', [id, inFlight]);
}

export async function markDraining(db: Db, id: string): Promise<void> {
  await db.query('UPDATE coordinators SET draining = true WHERE id = $1', [id]);
  await releaseAllPartitions(db, id);
}

export async function markStopped(db: Db, id: string, inFlight = 0): Promise<void> {
  await releaseAllPartitions(db, id);
  await db.query('UPDATE coordinators SET stopped_at = now(), draining = true, in_flight = $2 WHERE id = $1', [id, inFlight]);
}

async function releaseAllPartitions(db: Db, id: string): Promise<void> {
  await db.query(
    `WITH rel AS (UPDATE partition_owners SET owner = NULL, since = now() WHERE owner = $1 RETURNING task, partition)
     INSERT INTO partition_owner_log (task, partition, owner, event) SELECT task, partition, $1, 'release' FROM rel`,
    [id],
  );
}

export async function recordAppliedVersion(
  db: Db,
  id: string,
  a: { version: number | null; applyMs: number; error: string | null },
): Promise<void> {
  if (a.error !== null) {
    await db.query('UPDATE coordinators SET apply_error = $2, apply_ms = $3 WHERE id = $1', [id, a.error, a.applyMs]);
  } else {
    await db.query(
      'UPDATE coordinators SET applied_version = $2, applied_at = now(), apply_ms = $3, apply_error = NULL WHERE id = $1',
      [id, a.version, a.applyMs],
    );
  }
}

export interface LiveMember {
  id: string;
  tasks: string[];
}

export async function liveMembers(db: Db, staleMs: number): Promise<LiveMember[]> {
  const r = await db.query<LiveMember>(
    `SELECT id, tasks FROM coordinators
     WHERE stopped_at IS NULL AND NOT draining AND last_heartbeat_at >= now() - make_interval(secs => $1 / 1000.0)`,
    [staleMs],
  );
  return r.rows;
}

/**
 * Maintenance: members silent for staleMs are marked stopped and lose their partitions;
 * rows stopped more than forgetAfterMs ago are deleted (their lease_owner references are
 * plain uuids, so history stays readable in execution_attempts).
 */
export async function cleanupStaleMembers(db: Db, staleMs: number, forgetAfterMs: number): Promise<{ stopped: number; deleted: number }> {
  const stopped = await db.query<{ id: string }>(
    `UPDATE coordinators SET stopped_at = now()
     WHERE stopped_at IS NULL AND last_heartbeat_at < now() - make_interval(secs => $1 / 1000.0) RETURNING id`,
    [staleMs],
  );
  for (const { id } of stopped.rows) await releaseAllPartitions(db, id);
  const deleted = await db.query(
    `DELETE FROM coordinators WHERE stopped_at < now() - make_interval(secs => $1 / 1000.0)`,
    [forgetAfterMs],
  );
  return { stopped: stopped.rowCount ?? 0, deleted: deleted.rowCount ?? 0 };
}
