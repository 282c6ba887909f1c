// Per-file database for integration tests: `const db = await testDatabase()` gives a
// pool on a fresh clone of the migrated template, and its URL for child processes.
import { inject, afterAll } from 'vitest';
import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { cloneDatabase } from '../support/test-postgres';
import { createPool } from '../../server/db/pool';

export interface TestDatabase {
  url: string;
  pool: pg.Pool;
}

export async function testDatabase(): Promise<TestDatabase> {
  const url = await cloneDatabase(inject('pgAdminUrl'), inject('pgTemplateDb'), randomBytes(4).toString('hex'));
  const pool = createPool(url, 20);
  afterAll(async () => {
    await pool.end();
  });
  return { url, pool };
}
