// The vacuum maintenance service's reads and its VACUUM (server/core/vacuum-policy.ts says
// when it acts): the server's autovacuum settings, and per table of Sluice's schema its
// live/dead tuples (pg_stat_user_tables) and reloptions. VACUUM cannot run inside a
// transaction block, so the caller passes the pool (each statement its own transaction).
import type { Db } from './pool';
import type { ServerVacuumSettings, TableVacuumStats } from '../core/vacuum-policy';

export async function readVacuumState(db: Db): Promise<{ server: ServerVacuumSettings; schema: string; nowMs: number; tables: TableVacuumStats[] }> {
  const s = await db.query<{ autovacuum: string; threshold: string; scale: string; athreshold: string; ascale: string; naptime_s: string; schema: string; now_ms: string }>(
    `SELECT current_setting('autovacuum') AS autovacuum, current_setting('autovacuum_vacuum_threshold') AS threshold,
            current_setting('autovacuum_vacuum_scale_factor') AS scale, current_setting('autovacuum_analyze_threshold') AS athreshold,
            current_setting('autovacuum_analyze_scale_factor') AS ascale,
            extract(epoch FROM current_setting('autovacuum_naptime')::interval) AS naptime_s,
            current_schema() AS schema, extract(epoch FROM now()) * 1000 AS now_ms`,
  );
  const row = s.rows[0]!;
  const t = await db.query<{ table: string; live: string; dead: string; mods: string; last_ms: string | null; reloptions: string[] | null }>(
    `SELECT s.relname AS table, s.n_live_tup AS live, s.n_dead_tup AS dead, s.n_mod_since_analyze AS mods,
            extract(epoch FROM greatest(s.last_vacuum, s.last_autovacuum)) * 1000 AS last_ms, c.reloptions
     FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
     WHERE s.schemaname = current_schema()
     ORDER BY s.relname`,
  );
  return {
    server: {
      autovacuum: row.autovacuum === 'on', threshold: Number(row.threshold), scaleFactor: Number(row.scale),
      analyzeThreshold: Number(row.athreshold), analyzeScaleFactor: Number(row.ascale), naptimeMs: Number(row.naptime_s) * 1000,
    },
    schema: row.schema,
    nowMs: Number(row.now_ms),
    tables: t.rows.map((r) => ({
      table: r.table, live: Number(r.live), dead: Number(r.dead), modSinceAnalyze: Number(r.mods),
      lastVacuumAt: r.last_ms === null ? null : Number(r.last_ms), reloptions: r.reloptions,
    })),
  };
}

const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** VACUUM one table of the schema (with ANALYZE when asked); the caller passes a pool, not a transaction. */
export async function vacuumTable(db: Db, schema: string, table: string, analyze: boolean): Promise<void> {
  await db.query(`VACUUM${analyze ? ' (ANALYZE)' : ''} ${ident(schema)}.${ident(table)}`);
}
