// The pg pool for hot-path SQL (claim, complete, enqueue) and the coordinator. The
// control plane's ordinary reads and writes go through Prisma (server/db/prisma.ts),
// which wraps this same pool via @prisma/adapter-pg so one process has one pool.
import pg from 'pg';

export type Db = pg.Pool | pg.PoolClient;
export type { PoolClient, Pool } from 'pg';

// int8 (bigint) columns: counters and ids stay below 2^53 in practice; parse to number.
pg.types.setTypeParser(20, (v) => Number(v));

const g = globalThis as unknown as { __sluicePool?: pg.Pool; __sluiceReadPool?: pg.Pool };

export function databaseUrl(): string {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL is not set (npm start sets it for the embedded Postgres)');
  return url;
}

export function getPool(): pg.Pool {
  if (!g.__sluicePool) {
    g.__sluicePool = createPool(databaseUrl());
  }
  return g.__sluicePool;
}

/** DATABASE_REPLICA_URL when set: a streaming replica of DATABASE_URL's database. */
export function replicaUrl(): string | null {
  return process.env.DATABASE_REPLICA_URL || null;
}

/** The pool the console's read-mostly pages (Overview, charts, executions, dead letters,
 *  audit) read from: a streaming replica when DATABASE_REPLICA_URL is set, else getPool().
 *  Writes, and reads that must see the caller's own write (details after an action,
 *  previews, replay progress), stay on getPool(). */
export function getReadPool(): pg.Pool {
  const url = replicaUrl();
  if (!url) return getPool();
  g.__sluiceReadPool ??= createPool(url, 10, 'sluice-replica-reads');
  return g.__sluiceReadPool;
}

export function createPool(connectionString: string, max = 10, applicationName = 'sluice'): pg.Pool {
  const pool = new pg.Pool({ connectionString, max, application_name: applicationName });
  // An idle client's error (server restart) must not crash the process.
  pool.on('error', (err) => console.error('[db] idle client error:', err.message));
  // pg-pool listens for errors only while a client is idle; one that is checked out and
  // between queries when the server goes away would emit an unhandled 'error' and kill
  // the process. The query in progress (if any) still rejects as usual.
  pool.on('connect', (client) => {
    client.on('error', (err) => console.error('[db] client error:', err.message));
  });
  return pool;
}

/** Runs fn in one transaction on a client of the pool; rolls back on throw, and with
 *  `rollback` (a dry run) after fn too, so fn's figures come back and nothing is stored. */
export async function withTransaction<T>(pool: pg.Pool, fn: (c: pg.PoolClient) => Promise<T>, opts: { rollback?: boolean } = {}): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const out = await fn(client);
    await client.query(opts.rollback ? 'ROLLBACK' : 'COMMIT');
    return out;
  } catch (e) {
    await client.query('ROLLBACK').catch(() => {});
    throw e;
  } finally {
    client.release();
  }
}
