// No table grows without a rule: every table of the migrated schema (information_schema)
// must have a retention rule or a documented reason it is bounded in
// server/core/retention-policy.ts TABLE_RETENTION, and every entry there must name a real
// table. A migration that adds a table fails here until someone decides how it is bounded.
import { describe, it, expect, beforeAll } from 'vitest';
import { testDatabase, type TestDatabase } from './db';
import { TABLE_RETENTION } from '../../server/core/retention-policy';

let db: TestDatabase;
beforeAll(async () => {
  db = await testDatabase();
});

describe('retention coverage', () => {
  it('every table has a retention rule or a reason it is bounded, and every rule names a table', async () => {
    const r = await db.pool.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`,
    );
    const tables = r.rows.map((x) => x.table_name);
    expect(tables.length).toBeGreaterThan(30);
    expect(tables.filter((t) => !(t in TABLE_RETENTION))).toEqual([]);
    expect(Object.keys(TABLE_RETENTION).filter((t) => !tables.includes(t))).toEqual([]);
    for (const [t, v] of Object.entries(TABLE_RETENTION)) expect(('rule' in v ? v.rule : v.bounded).length, t).toBeGreaterThan(5);
  });
});
