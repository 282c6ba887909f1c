// What CLI commands that change data share: the database to use, the audit actor
// (`cli (<os user>@<host>)`), and turning a service's CoreError into a CliError (printed
// without a stack, exit status 2).
import os from 'node:os';
import type pg from 'pg';
import { createPool } from '../db/pool';
import { portIsFree, embeddedUrl } from '../db/embedded';
import type { Actor } from '../db/audit';
import { isCoreError } from '../core/errors';
import { env } from '../env';
import { CliError } from './cli-error';

export function cliActor(): Actor {
  let user = 'unknown';
  try {
    user = os.userInfo().username;
  } catch {
    // No passwd entry (some containers): keep "unknown".
  }
  return { type: 'cli', id: null, label: `cli (${user}@${os.hostname()})` };
}

/**
 * DATABASE_URL, or the embedded Postgres that `npm start` runs (same user, password and
 * database as server/db/embedded.ts) when it is up on SLUICE_EMBEDDED_PG_PORT.
 */
export async function cliDatabaseUrl(): Promise<string> {
  const e = env();
  if (e.DATABASE_URL) return e.DATABASE_URL;
  if (!(await portIsFree(e.SLUICE_EMBEDDED_PG_PORT))) {
    return embeddedUrl(e.SLUICE_EMBEDDED_PG_PORT);
  }
  throw new CliError(
    `DATABASE_URL is not set and no embedded Postgres is running on port ${e.SLUICE_EMBEDDED_PG_PORT}. ` +
      'Start Sluice with `npm start` first, or set DATABASE_URL=postgres://…',
  );
}

/** Runs fn with a pool on the CLI's database; closes it after; CoreError → CliError. */
export async function withCliDatabase<T>(fn: (pool: pg.Pool) => Promise<T>): Promise<T> {
  const pool = createPool(await cliDatabaseUrl(), 2);
  try {
    return await fn(pool);
  } catch (e) {
    if (isCoreError(e)) {
      const details = e.fieldErrors?.length ? '\n' + e.fieldErrors.map((f) => `  ${f.path || '(input)'}: ${f.message}`).join('\n') : '';
      throw new CliError(`${e.message}${details}`);
    }
    throw e;
  } finally {
    await pool.end();
  }
}

/** --json output: the value as indented JSON on stdout. */
export function printJson(v: unknown): void {
  console.log(JSON.stringify(v, null, 2));
}
