// The database `sluice start` uses: DATABASE_URL when set, else the embedded Postgres in
// SLUICE_DATA_DIR/pg (relative to the checkout). A start-up problem with the embedded
// server becomes a CliError: one sentence, no stack.
import path from 'node:path';
import type { Env } from '../env';
import { startEmbeddedPostgres, EmbeddedPostgresError, type EmbeddedPostgres } from '../db/embedded';
import { CliError } from './cli-error';
import { ROOT } from './build';

export async function startDatabase(env: Env, log: (m: string) => void): Promise<{ databaseUrl: string; embedded?: EmbeddedPostgres }> {
  if (env.DATABASE_URL) return { databaseUrl: env.DATABASE_URL };
  const dataDir = path.resolve(ROOT, env.SLUICE_DATA_DIR, 'pg');
  log(`DATABASE_URL is not set: using the embedded Postgres in ${path.relative(process.cwd(), dataDir) || dataDir} (port ${env.SLUICE_EMBEDDED_PG_PORT})`);
  try {
    const embedded = await startEmbeddedPostgres({
      dataDir,
      port: env.SLUICE_EMBEDDED_PG_PORT,
      home: env.SLUICE_EMBEDDED_PG_HOME,
      log: () => {},
      notice: log,
    });
    return { databaseUrl: embedded.url, embedded };
  } catch (e) {
    if (e instanceof EmbeddedPostgresError) throw new CliError(e.message);
    throw e;
  }
}
