// The vacuum maintenance service's reads and its VACUUM (server/core/vacuum-policy.ts says
// when it acts): the server's autovacuum settings, and per table of Sluice's schema its
// live/dead tuples (pg_stat_user_tables) and reloptions. VACUUM cannot run inside a
// transaction block, so the caller passes the pool (each statement its own transaction).
import type { Db } from './pool';
import type { ServerVacuumSettings, TableVacuumStats } from '../core/vacuum-policy';

export async function readVacuumState(db: Db): Promise<{ server: ServerVacuumSettings; schema: string; tables: TableVacuumStats[] }> {
  const s = await db.query<{ autovacuum: string; threshold: string; scale: string; schema: string }>(
    `SELECT current_setting('autovacuum') AS autovacuum, current_setting('autovacuum_vacuum_threshold') AS threshold,
            current_setting('autovacuum_vacuum_scale_factor') AS scale, current_schema() AS schema`,
  );
  const row = s.rows[0]!;
  const t = await db.query<{ table: string; live: string; dead: string; reloptions: string[] | null }>(
    `SELECT s.relname AS table, s.n_live_tup AS live, s.n_dead_tup AS dead, c.reloptions
     FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
     WHERE s.schemaname = current_schema()
     ORDER BY s.relname`,
  );
  return {
    server: { autovacuum: row.autovacuum === 'on', threshold: Number(row.threshold), scaleFactor: Number(row.scale) },
    schema: row.schema,
    tables: t.rows.map((r) => ({ table: r.table, live: Number(r.live), dead: Number(r.dead), reloptions: r.reloptions })),
  };
}

const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** VACUUM (ANALYZE) one table of the schema; the caller passes a pool, not a transaction. */
export async function vacuumTable(db: Db, schema: string, table: string): Promise<void> {
  await db.query(`VACUUM (ANALYZE) ${ident(schema)}.${ident(table)}`);
}
