// The pg pool: every read and write of every table (docs/architecture.md, "Data access"):
// the hot path (claim, finish, enqueue), the coordinator, and the control plane's services
// and presenters. withTransaction below is the one transaction helper. Prisma is not a
// runtime client: prisma/schema.prisma describes the schema (the drift test) and no more.
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

function isPool(db: Db | pg.ClientBase): db is pg.Pool {
  return typeof (db as pg.Pool).totalCount === 'number';
}

/** Runs fn on one connection: a client of the pool (given back after), or the caller's own client. */
export async function withClient<T>(db: Db, fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
  if (!isPool(db)) return fn(db);
  const client = await db.connect();
  try {
    return await fn(client);
  } finally {
    client.release();
  }
}

/**
 * The one transaction helper: runs fn in one transaction and rolls back on throw, and with
 * `rollback` (a dry run) after fn too, so fn's figures come back and nothing is stored.
 *
 * `db` is a pool (a client is borrowed for the transaction) or a client of the caller's
 * (a pool's, or a lone pg.Client such as the migration run's): idle, it gets its own
 * BEGIN/COMMIT; already inside a transaction (a test's, or an outer withTransaction), fn
 * runs in a SAVEPOINT, so its rollback undoes only its own work and the outer transaction
 * decides whether anything is kept.
 */
export function withTransaction<T>(db: Db, fn: (c: pg.PoolClient) => Promise<T>, opts?: { rollback?: boolean }): Promise<T>;
export function withTransaction<T>(db: pg.ClientBase, fn: (c: pg.ClientBase) => Promise<T>, opts?: { rollback?: boolean }): Promise<T>;
export async function withTransaction<T>(db: Db | pg.ClientBase, fn: (c: pg.PoolClient) => Promise<T>, opts: { rollback?: boolean } = {}): Promise<T> {
  if (isPool(db)) return withClient(db, (c) => inTransaction(c, fn, opts));
  return inTransaction(db as pg.PoolClient, fn, opts);
}

async function inTransaction<T>(client: pg.PoolClient, fn: (c: pg.PoolClient) => Promise<T>, opts: { rollback?: boolean }): Promise<T> {
  const status = client.getTransactionStatus();
  const nested = status === 'T' || status === 'E';
  const [begin, commit, rollback] = nested
    ? ['SAVEPOINT sluice_tx', 'RELEASE SAVEPOINT sluice_tx', 'ROLLBACK TO SAVEPOINT sluice_tx; RELEASE SAVEPOINT sluice_tx']
    : ['BEGIN', 'COMMIT', 'ROLLBACK'];
  await client.query(begin);
  let out: T;
  try {
    out = await fn(client);
  } catch (e) {
    await client.query(rollback).catch(() => {});
    throw e;
  }
  await client.query(opts.rollback ? rollback : commit);
  return out;
}
