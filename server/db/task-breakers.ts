// A task's circuit breaker row (task_breakers, migration 20261124220000001) and its
// transitions (task_breaker_events). server/services/circuit-breaker.ts decides with
// core/circuit-breaker.ts and writes through these; coordinators read the rows before
// claiming (server/coordinator/breaker-gate.ts). Times are the database's clock, in ms
// since the epoch, so every coordinator judges a cool-down by the same clock.
import type { StoredBreaker, Transition } from '../core/circuit-breaker';
import type { Db } from './pool';

/** sluice_breaker carries a task name whenever its breaker changes state. */
export const BREAKER_CHANNEL = 'sluice_breaker';

export interface BreakerRow extends StoredBreaker {
  task: string;
  tripsTotal: number;
  /** The database's now() when read. */
  nowMs: number;
}

const COLUMNS = `task, state, (extract(epoch FROM since) * 1000)::float8 AS "sinceMs", reason, window_counts AS "window",
  (extract(epoch FROM opened_at) * 1000)::float8 AS "openedAtMs", probes_started AS "probesStarted",
  probes_succeeded AS "probesSucceeded", (extract(epoch FROM probes_at) * 1000)::float8 AS "probesAtMs", trips_total::float8 AS "tripsTotal", (extract(epoch FROM now()) * 1000)::float8 AS "nowMs"`;

/** The breakers of these tasks (tasks without a row have never left closed). */
export async function readBreakers(db: Db, tasks: readonly string[]): Promise<BreakerRow[]> {
  if (tasks.length === 0) return [];
  const r = await db.query<BreakerRow>(`SELECT ${COLUMNS} FROM task_breakers WHERE task = ANY ($1::text[]) ORDER BY task`, [[...tasks]]);
  return r.rows;
}

/** The task's row locked for update, created closed if it has none. Inside a transaction. */
export async function lockBreaker(db: Db, task: string): Promise<BreakerRow> {
  await db.query(`INSERT INTO task_breakers (task) VALUES ($1) ON CONFLICT (task) DO NOTHING`, [task]);
  const r = await db.query<BreakerRow>(`SELECT ${COLUMNS} FROM task_breakers WHERE task = $1 FOR UPDATE`, [task]);
  return r.rows[0]!;
}

/** Writes the row (core/circuit-breaker toStored) and one event per transition, each
 *  notifying sluice_breaker. Inside the transaction that locked the row. */
export async function saveBreaker(
  db: Db,
  task: string,
  w: StoredBreaker & { tripped: boolean },
  transitions: readonly (Transition | undefined)[],
  actor: string | null = null,
): Promise<void> {
  await db.query(
    `UPDATE task_breakers SET state = $2, since = to_timestamp($3 / 1000.0), reason = $4, window_counts = $5::jsonb,
       opened_at = to_timestamp($6 / 1000.0), probes_started = $7, probes_succeeded = $8,
       trips_total = trips_total + $9::int, probes_at = to_timestamp($10 / 1000.0), updated_at = now()
     WHERE task = $1`,
    [task, w.state, w.sinceMs, w.reason, JSON.stringify(w.window), w.openedAtMs, w.probesStarted, w.probesSucceeded, w.tripped ? 1 : 0, w.probesAtMs],
  );
  for (const t of transitions) if (t) await recordBreakerEvent(db, task, { from: t.from, to: t.to, reason: t.reason, actor });
}

/** A transition, and a notification so every coordinator re-reads the row now. */
export async function recordBreakerEvent(db: Db, task: string, e: { from: string; to: string; reason: string; actor?: string | null }): Promise<void> {
  await db.query(
    `WITH e AS (INSERT INTO task_breaker_events (task, from_state, to_state, reason, actor) VALUES ($1, $2, $3, $4, $5))
     SELECT pg_notify('${BREAKER_CHANNEL}', $1)`,
    [task, e.from, e.to, e.reason, e.actor ?? null],
  );
}

export interface BreakerEvent {
  from: string;
  to: string;
  reason: string;
  actor: string | null;
  at: Date;
}

export async function readBreakerEvents(db: Db, task: string, limit = 10): Promise<BreakerEvent[]> {
  const r = await db.query<BreakerEvent>(
    `SELECT from_state AS "from", to_state AS "to", reason, actor, at FROM task_breaker_events WHERE task = $1 ORDER BY id DESC LIMIT $2`,
    [task, limit],
  );
  return r.rows;
}

/** Hands back probe slots a half-open claim reserved but did not fill (same episode only). */
export async function returnProbes(db: Db, task: string, n: number, sinceMs: number): Promise<void> {
  if (n <= 0) return;
  await db.query(
    `UPDATE task_breakers SET probes_started = greatest(0, probes_started - $2)
     WHERE task = $1 AND state = 'half-open' AND abs(extract(epoch FROM since) * 1000 - $3) < 1`,
    [task, n, sinceMs],
  );
}
