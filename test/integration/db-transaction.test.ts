// The one transaction helper (server/db/pool.ts withTransaction) on real Postgres: a pool
// borrows a client and commits or rolls back; a caller's idle client gets its own
// transaction and stays the caller's; a client already in a transaction gets a SAVEPOINT,
// so a test can pass its own transaction and throw everything away after. And a service
// (applyConfig) run on a test's client inside its transaction leaves nothing once the
// test rolls back.
import { describe, it, expect, beforeAll } from 'vitest';
import pg from 'pg';
import { testDatabase, type TestDatabase } from './db';
import { withClient, withTransaction } from '../../server/db/pool';
import { applyConfig } from '../../server/services/config-versions';
import { SYSTEM_ACTOR } from '../../server/db/audit';

let db: TestDatabase;

beforeAll(async () => {
  db = await testDatabase();
  await db.pool.query('CREATE TABLE tx_probe (v text PRIMARY KEY)');
});

async function values(): Promise<string[]> {
  return (await db.pool.query<{ v: string }>('SELECT v FROM tx_probe ORDER BY v')).rows.map((r) => r.v);
}

describe('withTransaction', () => {
  it('on a pool: commits, rolls back on throw, and rolls back a dry run while returning its result', async () => {
    await db.pool.query('TRUNCATE tx_probe');
    expect(await withTransaction(db.pool, async (c) => (await c.query("INSERT INTO tx_probe VALUES ('kept') RETURNING v")).rows[0].v)).toBe('kept');
    await expect(
      withTransaction(db.pool, async (c) => {
        await c.query("INSERT INTO tx_probe VALUES ('thrown')");
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    const dry = await withTransaction(db.pool, async (c) => (await c.query("INSERT INTO tx_probe VALUES ('dry') RETURNING v")).rowCount, { rollback: true });
    expect(dry).toBe(1);
    expect(await values()).toEqual(['kept']);
    expect(db.pool.idleCount).toBe(db.pool.totalCount); // every client given back
  });

  it("on a caller's idle client: its own BEGIN/COMMIT, and the client stays checked out", async () => {
    await db.pool.query('TRUNCATE tx_probe');
    const client = await db.pool.connect();
    try {
      await withTransaction(client, async (c) => {
        expect(c).toBe(client);
        await c.query("INSERT INTO tx_probe VALUES ('a')");
      });
      expect(client.getTransactionStatus()).toBe('I');
      await expect(withTransaction(client, async (c) => c.query('SELECT 1/0'))).rejects.toThrow(/division by zero/);
      expect(client.getTransactionStatus()).toBe('I');
      expect((await client.query('SELECT 1 AS one')).rows[0].one).toBe(1);
    } finally {
      client.release();
    }
    expect(await values()).toEqual(['a']);
  });

  it('inside an open transaction: a SAVEPOINT; an inner throw undoes only the inner work, the outer rollback undoes all', async () => {
    await db.pool.query('TRUNCATE tx_probe');
    const client = await db.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query("INSERT INTO tx_probe VALUES ('outer')");
      await withTransaction(client, (c) => c.query("INSERT INTO tx_probe VALUES ('inner-kept')"));
      await expect(
        withTransaction(client, async (c) => {
          await c.query("INSERT INTO tx_probe VALUES ('inner-thrown')");
          await c.query('SELECT 1/0');
        }),
      ).rejects.toThrow(/division by zero/);
      expect(client.getTransactionStatus()).toBe('T'); // still usable, still open
      await withTransaction(client, (c) => c.query("INSERT INTO tx_probe VALUES ('inner-dry')"), { rollback: true });
      // nested inside a nested one
      await withTransaction(client, (c) => withTransaction(c, (cc) => cc.query("INSERT INTO tx_probe VALUES ('deep')")));
      const seen = (await client.query<{ v: string }>('SELECT v FROM tx_probe ORDER BY v')).rows.map((r) => r.v);
      expect(seen).toEqual(['deep', 'inner-kept', 'outer']);
      expect(await values()).toEqual([]); // nothing committed yet
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
    expect(await values()).toEqual([]);
  });

  it('on a lone pg.Client (the migration run\'s kind)', async () => {
    await db.pool.query('TRUNCATE tx_probe');
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      await withTransaction(client, (c) => c.query("INSERT INTO tx_probe VALUES ('lone')"));
    } finally {
      await client.end();
    }
    expect(await values()).toEqual(['lone']);
  });

  it('withClient gives a pool client back and leaves a caller\'s client alone', async () => {
    await withClient(db.pool, (c) => c.query('SELECT 1'));
    expect(db.pool.idleCount).toBe(db.pool.totalCount);
    const client = await db.pool.connect();
    try {
      expect(await withClient(client, async (c) => c)).toBe(client);
    } finally {
      client.release();
    }
  });
});

describe('a service on a test-owned transaction', () => {
  it('applyConfig on a client inside BEGIN: visible inside, gone after the test rolls back', async () => {
    const versions = async (q: pg.Pool | pg.PoolClient) => Number((await q.query<{ n: string }>('SELECT count(*) AS n FROM config_versions')).rows[0]!.n);
    const before = await versions(db.pool);
    const client = await db.pool.connect();
    try {
      await client.query('BEGIN');
      const applied = await applyConfig(client, SYSTEM_ACTOR, { tasks: [{ name: 'tx-test-task' }] }, { message: 'in a test transaction' });
      expect(applied.version).toBeGreaterThan(0);
      expect(await versions(client)).toBe(before + 1);
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
    expect(await versions(db.pool)).toBe(before);
  });
});
