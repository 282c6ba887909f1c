// The vacuum maintenance service's reads and its VACUUM (server/core/vacuum-policy.ts says
// when it acts): the server's autovacuum settings, and per table of Sluice's schema its
// live/dead tuples (pg_stat_user_tables) and reloptions. VACUUM cannot run inside a
// transaction block, so the caller passes the pool (each statement its own transaction).
import type { Db } from './pool';
import type { ServerVacuumSettings, TableVacuumStats } from '../core/vacuum-policy';

// The database's xmin horizon as a 64-bit transaction id: the oldest xmin or xid any other
// session of this database holds (pg_stat_activity), a replication slot's xmin, a prepared
// transaction's xid — else the next transaction id. A 32-bit xid is placed in the epoch of
// the snapshot's xmax (the one before when it is above xmax's low half: older than the wrap),
// so a horizon held by one session reads the same number at every run. Another role's
// session shows its backend_xmin only to a superuser or a member of pg_read_all_stats; for
// any other role the horizon is unknown (NULL) and the vacuum service paces by the naptime
// alone, as before: a held horizon it cannot see must not look like one that has moved.
// With it, how long (ms) the session holding it has had its transaction open (a prepared
// transaction: since it was prepared; a replication slot: 0, unknown).
const HORIZON_SQL = `
  WITH n AS (SELECT pg_snapshot_xmax(pg_current_snapshot())::text::bigint AS nx),
  h AS (
    SELECT a.backend_xmin AS x, a.xact_start AS since FROM pg_stat_activity a WHERE a.datname = current_database() AND a.pid <> pg_backend_pid()
    UNION ALL SELECT a.backend_xid, a.xact_start FROM pg_stat_activity a WHERE a.datname = current_database() AND a.pid <> pg_backend_pid()
    UNION ALL SELECT s.xmin, NULL FROM pg_replication_slots s
    UNION ALL SELECT p.transaction, p.prepared FROM pg_prepared_xacts p WHERE p.database = current_database()
  ),
  x AS (
    SELECT CASE WHEN h.x::text::bigint <= n.nx % 4294967296 THEN n.nx - n.nx % 4294967296 + h.x::text::bigint
                ELSE n.nx - n.nx % 4294967296 - 4294967296 + h.x::text::bigint END AS x64, h.since
    FROM n JOIN h ON h.x IS NOT NULL
  ),
  o AS (SELECT x.x64, x.since FROM x ORDER BY x.x64, x.since NULLS LAST LIMIT 1)
  SELECT CASE WHEN (SELECT r.rolsuper FROM pg_roles r WHERE r.rolname = current_user) OR pg_has_role('pg_read_all_stats', 'USAGE')
         THEN coalesce((SELECT o.x64 FROM o), (SELECT n.nx FROM n)) END AS horizon,
         coalesce((SELECT greatest(extract(epoch FROM clock_timestamp() - o.since) * 1000, 0) FROM o), 0) AS held_ms`;

/** The database's xmin horizon (64-bit transaction id), or null where this role cannot see
 *  every session's; and how long its holder has been open (ms). */
export async function readHorizon(db: Db): Promise<{ horizon: number | null; heldMs: number }> {
  const r = await db.query<{ horizon: string | null; held_ms: string }>(HORIZON_SQL);
  const h = r.rows[0]!;
  return { horizon: h.horizon === null ? null : Number(h.horizon), heldMs: Math.round(Number(h.held_ms)) };
}

export async function readVacuumState(db: Db): Promise<{ server: ServerVacuumSettings; schema: string; nowMs: number; horizon: number | null; heldMs: number; tables: TableVacuumStats[] }> {
  const s = await db.query<{ autovacuum: string; threshold: string; scale: string; athreshold: string; ascale: string; naptime_s: string; schema: string; now_ms: string }>(
    `SELECT current_setting('autovacuum') AS autovacuum, current_setting('autovacuum_vacuum_threshold') AS threshold,
            current_setting('autovacuum_vacuum_scale_factor') AS scale, current_setting('autovacuum_analyze_threshold') AS athreshold,
            current_setting('autovacuum_analyze_scale_factor') AS ascale,
            extract(epoch FROM current_setting('autovacuum_naptime')::interval) AS naptime_s,
            current_schema() AS schema, extract(epoch FROM now()) * 1000 AS now_ms`,
  );
  const row = s.rows[0]!;
  // own: vacuum_state's row when it is the table's last vacuum (recorded after the VACUUM
  // ended, so at or after its last_vacuum; an autovacuum or a VACUUM by hand since makes it stale)
  const t = await db.query<{ table: string; live: string; dead: string; mods: string; last_ms: string | null; reloptions: string[] | null; own_horizon: string | null; own_left: string | null; own_held: string | null }>(
    `SELECT s.relname AS table, s.n_live_tup AS live, s.n_dead_tup AS dead, s.n_mod_since_analyze AS mods,
            extract(epoch FROM greatest(s.last_vacuum, s.last_autovacuum)) * 1000 AS last_ms, c.reloptions,
            v.horizon AS own_horizon, v.left_dead AS own_left, v.held_ms AS own_held
     FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
     LEFT JOIN vacuum_state v ON v.table_name = s.relname AND v.vacuumed_at >= greatest(s.last_vacuum, s.last_autovacuum)
     WHERE s.schemaname = current_schema()
     ORDER BY s.relname`,
  );
  const { horizon, heldMs } = await readHorizon(db);
  return {
    server: {
      autovacuum: row.autovacuum === 'on', threshold: Number(row.threshold), scaleFactor: Number(row.scale),
      analyzeThreshold: Number(row.athreshold), analyzeScaleFactor: Number(row.ascale), naptimeMs: Number(row.naptime_s) * 1000,
    },
    schema: row.schema,
    nowMs: Number(row.now_ms),
    horizon,
    heldMs,
    tables: t.rows.map((r) => ({
      table: r.table, live: Number(r.live), dead: Number(r.dead), modSinceAnalyze: Number(r.mods),
      lastVacuumAt: r.last_ms === null ? null : Number(r.last_ms), reloptions: r.reloptions,
      own: r.own_horizon === null ? null : { horizon: Number(r.own_horizon), leftDead: Number(r.own_left), heldMs: Number(r.own_held) },
    })),
  };
}

const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** VACUUM one table of the schema (with ANALYZE when asked), then record in vacuum_state the
 *  horizon it ran under and how long its holder had been open (both read before it: the
 *  VACUUM's own horizon is no older) and the dead tuples it left; returns those (nothing
 *  recorded where the horizon is unknown). The caller passes a pool, not a transaction. */
export async function vacuumTable(
  db: Db, schema: string, table: string, analyze: boolean, horizon: { horizon: number | null; heldMs: number },
): Promise<{ leftDead: number | null }> {
  await db.query(`VACUUM${analyze ? ' (ANALYZE)' : ''} ${ident(schema)}.${ident(table)}`);
  if (horizon.horizon === null) return { leftDead: null };
  const r = await db.query<{ left_dead: string }>(
    `INSERT INTO vacuum_state AS v (table_name, vacuumed_at, horizon, left_dead, held_ms)
     SELECT $1::text, now(), $2::bigint, coalesce((SELECT s.n_dead_tup FROM pg_stat_user_tables s WHERE s.schemaname = $3::text AND s.relname = $1::text), 0), $4::bigint
     ON CONFLICT (table_name) DO UPDATE SET vacuumed_at = excluded.vacuumed_at, horizon = excluded.horizon, left_dead = excluded.left_dead, held_ms = excluded.held_ms
     RETURNING v.left_dead`,
    [table, horizon.horizon, schema, horizon.heldMs],
  );
  return { leftDead: Number(r.rows[0]!.left_dead) };
}
