import { describe, it, expect } from 'vitest';
import { testDatabase } from './db';
import { migrate } from '../../server/db/migrate';

describe('migrations', () => {
  it('are applied to the template and a second run is a no-op', async () => {
    const db = await testDatabase();
    const tables = await db.pool.query(`SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public' AND tablename = 'users'`);
    expect(tables.rows[0].n).toBe(1);
    expect(await migrate(db.url)).toEqual([]);
  });
});
