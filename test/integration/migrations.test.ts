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

describe('20261124200000010_rate_thresholds_at_most_one', () => {
  it('clamps stored rate lines above 1 (written before the 100% bound) so every version reads again; others untouched', async () => {
    const fs = await import('node:fs');
    const path = await import('node:path');
    const { storedConfig } = await import('../../server/core/stored-config');
    const db = await testDatabase();
    const task = (name: string, retry: unknown) => ({ name, partitions: 1, thresholds: { retryRate: retry, dlqRate: { warning: 0.01, critical: 7 } } });
    await db.pool.query(
      `INSERT INTO config_versions (version, config, author, message) VALUES
         (901, $1, 'test', 'bad rates'), (902, $2, 'test', 'good rates')`,
      [{ tasks: [task('a', { warning: 10, critical: 25 }), { name: 'b', partitions: 1 }] }, { tasks: [task('c', { warning: 0.1, critical: 0.25 })].map((t) => ({ ...t, thresholds: { ...t.thresholds, dlqRate: { warning: 0.01, critical: 0.05 } } })) }],
    );
    const bad = (await db.pool.query('SELECT config FROM config_versions WHERE version = 901')).rows[0].config;
    expect(() => storedConfig({ version: 901, config: bad })).toThrow(/no longer validates/);
    const good = (await db.pool.query('SELECT config FROM config_versions WHERE version = 902')).rows[0].config;

    const sql = fs.readFileSync(path.join(process.cwd(), 'prisma/migrations/20261124200000010_rate_thresholds_at_most_one.sql'), 'utf8');
    const c = await db.pool.connect();
    try {
      await c.query(sql);
    } finally {
      c.release();
    }
    const rows = await db.pool.query<{ version: number; config: { tasks: { name: string; thresholds?: Record<string, unknown> }[] } }>(
      'SELECT version, config FROM config_versions WHERE version IN (901, 902) ORDER BY version',
    );
    expect(rows.rows[0]!.config.tasks.map((t) => t.name)).toEqual(['a', 'b']);
    expect(rows.rows[0]!.config.tasks[0]!.thresholds).toEqual({ retryRate: { warning: 0.99, critical: 1 }, dlqRate: { warning: 0.01, critical: 1 } });
    expect(rows.rows[0]!.config.tasks[1]).toEqual({ name: 'b', partitions: 1 });
    expect(storedConfig({ version: 901, config: rows.rows[0]!.config }).tasks).toHaveLength(2);
    expect(rows.rows[1]!.config).toEqual(good);
  });
});
