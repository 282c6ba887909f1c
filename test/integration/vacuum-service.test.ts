// The vacuum maintenance service (server/core/vacuum-policy.ts, issue #18): where autovacuum
// will not run, it vacuums Sluice's tables past their vacuum threshold, as autovacuum would.
// The test turns autovacuum off for executions (`autovacuum_enabled = false`), so it means
// the same whatever the server's own setting (a CI machine's Postgres runs with
// `autovacuum = off`, and without this service the executions table only grew).
import { describe, it, expect, beforeAll } from 'vitest';
import { testDatabase, type TestDatabase } from './db';
import { applyTasks, fakeCoordinator } from '../support/engine-fixtures';
import { runServiceOnce } from '../../server/db/maintenance-runner';
import { vacuum } from '../../server/coordinator/maintenance/vacuum';
import { readHorizon } from '../../server/db/vacuum-tables';
import { HELD_MS } from '../../server/core/vacuum-policy';
import pg from 'pg';
import { randomBytes } from 'node:crypto';

let db: TestDatabase;
let coord: string;

beforeAll(async () => {
  db = await testDatabase();
  await applyTasks(db.pool, [{ name: 'vac', partitions: 1 }]);
  coord = await fakeCoordinator(db.pool, ['vac']);
  await db.pool.query('ALTER TABLE executions SET (autovacuum_enabled = false)');
});

const stats = async (table = 'executions') =>
  (await db.pool.query<{ dead: string; live: string; vacuums: string }>(
    `SELECT n_dead_tup AS dead, n_live_tup AS live, vacuum_count AS vacuums FROM pg_stat_user_tables WHERE relname = $1 AND schemaname = current_schema()`,
    [table],
  )).rows.map((r) => ({ dead: Number(r.dead), live: Number(r.live), vacuums: Number(r.vacuums) }))[0]!;

/** Inserts then deletes n finished executions on one connection and flushes its statistics. */
async function churn(n: number): Promise<void> {
  const c = await db.pool.connect();
  try {
    await c.query(
      `INSERT INTO executions (task, partition, state, payload, attempts, finished_at) SELECT 'vac', 0, 'succeeded', '{}', 1, now() FROM generate_series(1, $1)`,
      [n],
    );
    await c.query(`DELETE FROM executions WHERE task = 'vac'`);
    await c.query('SELECT pg_stat_force_next_flush()');
  } finally {
    c.release();
  }
}

async function deadAtLeast(n: number, table = 'executions'): Promise<void> {
  const until = Date.now() + 20_000;
  while ((await stats(table)).dead < n) {
    if (Date.now() > until) throw new Error(`${table} never showed ${n} dead tuples: ${JSON.stringify(await stats(table))}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const run = () => runServiceOnce(db.pool, vacuum, { intervalMs: 0 }, { log: () => {}, coordinatorId: coord, staleMs: 10_000 });

describe('vacuum service', () => {
  it('leaves a table under its threshold (5,000 + 0.02 × live dead tuples for executions) alone', async () => {
    await churn(3_000);
    await deadAtLeast(3_000);
    const before = await stats();
    const r = await run();
    expect(r.error).toBeUndefined();
    expect((r.result as { vacuumed: { table: string }[] }).vacuumed.map((v) => v.table)).not.toContain('executions');
    expect((await stats()).vacuums).toBe(before.vacuums);
  });

  it('vacuums executions past it: its dead tuples go, and the run says which table, how many and why', async () => {
    await churn(4_000); // 7,000 dead with the first test's
    await deadAtLeast(7_000);
    const before = await stats();
    const r = await run();
    expect(r.error).toBeUndefined();
    const res = r.result as { autovacuum: string; vacuumed: { table: string; dead: number; analyze: boolean; ms: number }[]; left: number };
    const v = res.vacuumed.find((x) => x.table === 'executions');
    expect(v?.dead).toBeGreaterThanOrEqual(7_000);
    expect(res.left).toBe(0);
    const after = await stats();
    expect(after.vacuums).toBe(before.vacuums + 1);
    expect(after.dead).toBeLessThan(100);
    // recorded like every maintenance run
    const rec = await db.pool.query<{ r: { vacuumed: { table: string }[] } }>(`SELECT last_result AS r FROM maintenance_runs WHERE name = 'vacuum'`);
    expect(rec.rows[0]!.r.vacuumed.map((x) => x.table)).toContain('executions');
  });

  it('not again within autovacuum_naptime of its last vacuum, however many dead tuples come', async () => {
    await churn(8_000);
    await deadAtLeast(8_000);
    const before = await stats();
    const r = await run();
    expect(r.error).toBeUndefined();
    expect((r.result as { vacuumed: { table: string }[] }).vacuumed.map((v) => v.table)).not.toContain('executions');
    expect((await stats()).vacuums).toBe(before.vacuums);
  });
});

// The xmin horizon (server/core/vacuum-policy.ts): a table of its own in the schema, never
// vacuumed before, so the naptime of the tests above does not apply to its first vacuum.
describe('vacuum service under a held snapshot', () => {
  const scratchStats = () => stats('vac_scratch');
  async function scratchChurn(n: number): Promise<void> {
    const c = await db.pool.connect();
    try {
      await c.query(`INSERT INTO vac_scratch (v) SELECT g FROM generate_series(1, $1) g`, [n]);
      await c.query(`DELETE FROM vac_scratch`);
      await c.query('SELECT pg_stat_force_next_flush()');
    } finally {
      c.release();
    }
    await deadAtLeast(n, 'vac_scratch');
  }
  type Res = { vacuumed: { table: string; dead: number; leftDead: number }[]; held: { table: string; dead: number }[] };
  const scratchIn = (r: Res) => ({ vacuumed: r.vacuumed.find((v) => v.table === 'vac_scratch'), held: r.held.find((h) => h.table === 'vac_scratch') });

  it('vacuums once under it, then leaves the table alone (held) until the snapshot ends, then vacuums it at once', async () => {
    await db.pool.query('CREATE TABLE vac_scratch (v int) WITH (autovacuum_enabled = false)');
    const holder = await db.pool.connect();
    try {
      await holder.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
      await holder.query('SELECT 1');
      const heldFrom = Date.now();
      // 1. past the threshold (50 + 0.2 × 0 live): vacuumed, and nothing could be removed;
      //    the snapshot has been open for HELD_MS by then, so this is a hold
      await scratchChurn(1_000);
      await new Promise((r) => setTimeout(r, Math.max(0, heldFrom + HELD_MS + 300 - Date.now())));
      const v0 = (await scratchStats()).vacuums;
      let r = await run();
      expect(r.error).toBeUndefined();
      let s = scratchIn(r.result as Res);
      expect(s.vacuumed?.dead).toBeGreaterThanOrEqual(1_000);
      expect(s.vacuumed?.leftDead).toBeGreaterThanOrEqual(1_000);
      expect((await scratchStats()).vacuums).toBe(v0 + 1);
      const rec = await db.pool.query<{ left_dead: string; held_ms: string }>(`SELECT left_dead, held_ms FROM vacuum_state WHERE table_name = 'vac_scratch'`);
      expect(Number(rec.rows[0]!.left_dead)).toBeGreaterThanOrEqual(1_000);
      expect(Number(rec.rows[0]!.held_ms)).toBeGreaterThanOrEqual(HELD_MS);

      // 2. more dead tuples, the same horizon: not scanned again, reported held
      await scratchChurn(1_000);
      r = await run();
      s = scratchIn(r.result as Res);
      expect(s.vacuumed).toBeUndefined();
      expect(s.held?.dead).toBeGreaterThanOrEqual(2_000);
      expect((await scratchStats()).vacuums).toBe(v0 + 1);
    } finally {
      await holder.query('COMMIT');
      holder.release();
    }
    // 3. the snapshot is gone: vacuumed at once, within the naptime (60 s) of the last
    const v1 = (await scratchStats()).vacuums;
    let r = await run();
    let s = scratchIn(r.result as Res);
    expect(s.vacuumed?.dead).toBeGreaterThanOrEqual(2_000);
    expect(s.vacuumed!.leftDead).toBeLessThan(50);
    expect(s.held).toBeUndefined();
    expect((await scratchStats()).vacuums).toBe(v1 + 1);
    expect((await scratchStats()).dead).toBeLessThan(50);

    // 4. that vacuum removed everything: the naptime holds again for new dead tuples
    await scratchChurn(1_000);
    r = await run();
    s = scratchIn(r.result as Res);
    expect(s.vacuumed).toBeUndefined();
    expect(s.held).toBeUndefined();
    expect((await scratchStats()).vacuums).toBe(v1 + 1);
  });
});

describe('the horizon a role cannot see', () => {
  it('is unknown (null) for a role that sees only its own sessions, and a number for one that sees all', async () => {
    const role = `sluice_vac_${randomBytes(4).toString('hex')}`;
    await db.pool.query(`CREATE ROLE ${role} LOGIN`);
    const u = new URL(db.url);
    u.username = role;
    const other = new pg.Pool({ connectionString: u.toString(), max: 1 });
    try {
      expect((await readHorizon(other)).horizon).toBeNull();
      expect(typeof (await readHorizon(db.pool)).horizon).toBe('number');
    } finally {
      await other.end();
      await db.pool.query(`DROP ROLE ${role}`);
    }
  });
});
