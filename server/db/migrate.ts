// Brings a database to this release's shape, in two steps under one advisory lock:
//  1. schema migrations: prisma/migrations/*.sql, applied with node-pg-migrate (each file
//     has `-- Up Migration` and `-- Down Migration` sections) in one transaction, each
//     exactly once (recorded in sluice_migrations). schema.prisma mirrors these files;
//     test/integration/schema-drift.test.ts fails when they disagree.
//  2. the repeatable step: every database function from its own file under
//     server/db/sql/functions/ (server/db/function-files.ts), re-applied when the file's
//     checksum changed, recorded in sluice_function_files, in a transaction of its own.
//
// Why two transactions and not one: node-pg-migrate owns step 1's BEGIN/COMMIT (and
// issues none when no migration is pending), so step 2 cannot join it without wrapping
// the library's statements. Instead this connection takes node-pg-migrate's own
// advisory lock (PG_MIGRATE_LOCK_ID, blocking, session level) before step 1 and keeps
// it until step 2 has committed: a second starter waits for both steps (it used to fail
// with "Another migration is already running") and then finds nothing to do. If step 2
// fails, step 1 stays committed and migrate() throws, so the release does not start; the
// database then holds the new schema and the previous release's functions, which is the
// state every rolling upgrade passes through anyway (schema changes must keep the
// previous release's functions working: docs/architecture.md § "Database functions").
import { runner, PG_MIGRATE_LOCK_ID } from 'node-pg-migrate';
import pg from 'pg';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { applyFunctionFiles, loadFunctionFiles, FUNCTIONS_DIR } from './function-files';

export const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'prisma', 'migrations');
export const MIGRATIONS_TABLE = 'sluice_migrations';

export interface MigrateOptions {
  log?: (m: string) => void;
  /** tests: another folder of schema migrations / function files */
  migrationsDir?: string;
  functionsDir?: string;
}

export interface MigrateResult {
  /** schema migrations applied by this run, in order */
  migrations: string[];
  /** function files (re-)applied by this run */
  functions: string[];
  /** sluice_* functions in the database without a file */
  orphans: string[];
}

export async function migrateDatabase(databaseUrl: string, opts: MigrateOptions = {}): Promise<MigrateResult> {
  const log = opts.log ?? (() => {});
  // Read and check the files before touching the database: a malformed file fails here.
  const files = loadFunctionFiles(opts.functionsDir ?? FUNCTIONS_DIR);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [PG_MIGRATE_LOCK_ID]);
    try {
      const ran = await runner({
        dbClient: client,
        noLock: true,
        dir: opts.migrationsDir ?? MIGRATIONS_DIR,
        migrationsTable: MIGRATIONS_TABLE,
        direction: 'up',
        checkOrder: true,
        singleTransaction: true,
        log,
        logger: { debug: () => {}, info: log, warn: (m: string) => console.warn(m), error: (m: string) => console.error(m) },
      });
      const fns = await applyFunctionFiles(client, files, log);
      for (const o of fns.orphans) {
        console.warn(`sluice migrate: function ${o} has no file in server/db/sql/functions (drop it in a schema migration, or restore its file)`);
      }
      return { migrations: ran.map((m) => m.name), functions: fns.applied, orphans: fns.orphans };
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [PG_MIGRATE_LOCK_ID]).catch(() => {});
    }
  } finally {
    await client.end();
  }
}

/** The schema migrations this run applied (the function files it re-applied are logged). */
export async function migrate(databaseUrl: string, opts: MigrateOptions = {}): Promise<string[]> {
  return (await migrateDatabase(databaseUrl, opts)).migrations;
}
