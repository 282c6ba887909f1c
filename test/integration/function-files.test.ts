// The engine's database functions as files (server/db/sql/functions/<name>.sql) and the
// repeatable step that applies them (server/db/migrate.ts, server/db/function-files.ts).
import { describe, it, expect, inject, afterAll } from 'vitest';
import pg from 'pg';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { runner } from 'node-pg-migrate';
import { testDatabase } from './db';
import { adminQuery, urlForDatabase } from '../support/test-postgres';
import { migrateDatabase, MIGRATIONS_DIR, MIGRATIONS_TABLE } from '../../server/db/migrate';
import { FUNCTIONS_DIR, FUNCTIONS_TABLE, loadFunctionFiles, normalizeFunctionDef } from '../../server/db/function-files';

/** The last migration of the release before function files: what an existing database
 *  was migrated with (its migrate() was node-pg-migrate over prisma/migrations alone). */
const LAST_OLD_MIGRATION = '20261123000800000_lean_cycle';

async function emptyDatabase(tag: string): Promise<string> {
  // Named after the run's template so the run's teardown drops it.
  const name = `${inject('pgTemplateDb')}_${tag}_${randomBytes(3).toString('hex')}`.slice(0, 63);
  await adminQuery(inject('pgAdminUrl'), `CREATE DATABASE "${name}"`);
  return urlForDatabase(inject('pgAdminUrl'), name);
}

async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** Every sluice_* function of the public schema (not an extension's), by signature. */
async function functionDefs(url: string): Promise<Map<string, { name: string; def: string }>> {
  return withClient(url, async (c) => {
    const r = await c.query<{ sig: string; name: string; def: string }>(
      `SELECT p.oid::regprocedure::text AS sig, p.proname AS name, pg_get_functiondef(p.oid) AS def
         FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
        WHERE n.nspname = 'public' AND p.proname LIKE 'sluice\\_%'
          AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = p.oid AND d.deptype = 'e')
        ORDER BY 1`,
    );
    return new Map(r.rows.map((x) => [x.sig, { name: x.name, def: x.def }]));
  });
}

/** What a database's shape is made of, beyond functions: columns, indexes, triggers,
 *  constraints (bookkeeping tables left out). */
async function schemaSnapshot(url: string): Promise<string[]> {
  return withClient(url, async (c) => {
    const out: string[] = [];
    const cols = await c.query(
      `SELECT table_name, column_name, data_type, is_nullable, column_default FROM information_schema.columns
        WHERE table_schema = 'public' AND table_name NOT IN ($1, $2) ORDER BY 1, 2`,
      [MIGRATIONS_TABLE, FUNCTIONS_TABLE],
    );
    for (const r of cols.rows) out.push(`column ${JSON.stringify(r)}`);
    const idx = await c.query(`SELECT indexdef FROM pg_indexes WHERE schemaname = 'public' AND tablename NOT IN ($1, $2) ORDER BY 1`, [
      MIGRATIONS_TABLE,
      FUNCTIONS_TABLE,
    ]);
    for (const r of idx.rows) out.push(`index ${r.indexdef}`);
    const trg = await c.query(`SELECT pg_get_triggerdef(t.oid) AS d FROM pg_trigger t WHERE NOT t.tgisinternal ORDER BY 1`);
    for (const r of trg.rows) out.push(`trigger ${r.d}`);
    const con = await c.query(
      `SELECT conrelid::regclass::text AS t, conname, pg_get_constraintdef(oid) AS d FROM pg_constraint
        WHERE connamespace = 'public'::regnamespace AND conrelid::regclass::text NOT IN ($1, $2) ORDER BY 1, 2`,
      [MIGRATIONS_TABLE, FUNCTIONS_TABLE],
    );
    for (const r of con.rows) out.push(`constraint ${r.t} ${r.conname} ${r.d}`);
    return out;
  });
}

describe('database functions: one file each, applied by the repeatable step', () => {
  const files = loadFunctionFiles();

  it('a freshly migrated database holds exactly the files’ functions, as written (drift)', async () => {
    const db = await testDatabase();
    const defs = await functionDefs(db.url);
    const problems: string[] = [];
    const byName = new Map<string, string[]>();
    for (const [sig, { name }] of defs) byName.set(name, [...(byName.get(name) ?? []), sig]);
    for (const [name, sigs] of byName) {
      if (!files.some((f) => f.name === name)) problems.push(`${sigs.join(', ')}: in the database, no file server/db/sql/functions/${name}.sql`);
      if (sigs.length > 1) problems.push(`${name}: ${sigs.length} overloads in the database (${sigs.join('; ')}): drop the old one in a migration`);
    }
    for (const f of files) {
      const sigs = byName.get(f.name);
      if (!sigs) {
        problems.push(`${f.file}: no such function in the database`);
        continue;
      }
      const def = normalizeFunctionDef(defs.get(sigs[0]!)!.def);
      if (def !== f.definition) {
        problems.push(`${f.file} differs from pg_get_functiondef(${sigs[0]}); write it as the database prints it:\n${def}`);
      }
    }
    expect(problems, problems.join('\n\n')).toEqual([]);
    // not vacuous: the engine's heart is among them
    expect([...byName.keys()]).toEqual(expect.arrayContaining(['sluice_claim', 'sluice_finish', 'sluice_cycle', 'sluice_hist_add']));
    expect(files.length).toBeGreaterThanOrEqual(12);
  });

  it('records each file with its checksum; a second run applies nothing', async () => {
    const db = await testDatabase();
    const rec = await db.pool.query<{ name: string; checksum: string }>(`SELECT name, checksum FROM ${FUNCTIONS_TABLE} ORDER BY name`);
    expect(rec.rows).toEqual(files.map((f) => ({ name: f.name, checksum: f.checksum })));
    expect(await migrateDatabase(db.url)).toEqual({ migrations: [], functions: [], orphans: [] });
  });

  it('re-applies only a file whose checksum changed', async () => {
    const db = await testDatabase();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-fns-'));
    afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
    for (const f of fs.readdirSync(FUNCTIONS_DIR)) fs.copyFileSync(path.join(FUNCTIONS_DIR, f), path.join(dir, f));
    const file = path.join(dir, 'sluice_latency_bounds.sql');
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('ARRAY[1, 2, 5,', 'ARRAY[1, 3, 5,'));
    const before = await db.pool.query(`SELECT applied_at FROM ${FUNCTIONS_TABLE} WHERE name = 'sluice_claim'`);

    expect(await migrateDatabase(db.url, { functionsDir: dir })).toEqual({ migrations: [], functions: ['sluice_latency_bounds'], orphans: [] });
    const bounds = await db.pool.query<{ b: number[] }>('SELECT sluice_latency_bounds() AS b');
    expect(bounds.rows[0]!.b.slice(0, 3)).toEqual([1, 3, 5]);
    const after = await db.pool.query(`SELECT applied_at FROM ${FUNCTIONS_TABLE} WHERE name = 'sluice_claim'`);
    expect(after.rows).toEqual(before.rows);
    expect(await migrateDatabase(db.url, { functionsDir: dir })).toEqual({ migrations: [], functions: [], orphans: [] });

    // and back to the repository's file
    expect((await migrateDatabase(db.url)).functions).toEqual(['sluice_latency_bounds']);
    expect((await db.pool.query<{ b: number[] }>('SELECT sluice_latency_bounds() AS b')).rows[0]!.b.slice(0, 3)).toEqual([1, 2, 5]);
  });

  it('refuses a file that does not define its own name, before touching the database', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-fns-bad-'));
    afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
    fs.writeFileSync(
      path.join(dir, 'sluice_a.sql'),
      `-- header\nCREATE OR REPLACE FUNCTION public.sluice_b()\n RETURNS integer\n LANGUAGE sql\nAS $function$ SELECT 1 $function$;\n`,
    );
    expect(() => loadFunctionFiles(dir)).toThrow(/exactly one function, CREATE OR REPLACE FUNCTION public\.sluice_a\(/);
    fs.writeFileSync(path.join(dir, 'sluice_a.sql'), `SELECT 1;\nCREATE OR REPLACE FUNCTION public.sluice_a()\n RETURNS integer\n LANGUAGE sql\nAS $function$ SELECT 1 $function$;\n`);
    expect(() => loadFunctionFiles(dir)).toThrow(/only comment lines/);
  });

  it('a database migrated by the previous release, then upgraded, ends identical to a fresh one', async () => {
    // The previous release's migrate(): node-pg-migrate over the historical migrations only.
    const oldDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-old-migrations-'));
    afterAll(() => fs.rmSync(oldDir, { recursive: true, force: true }));
    for (const f of fs.readdirSync(MIGRATIONS_DIR)) {
      if (f.replace(/\.sql$/, '') <= LAST_OLD_MIGRATION) fs.copyFileSync(path.join(MIGRATIONS_DIR, f), path.join(oldDir, f));
    }
    const oldUrl = await emptyDatabase('old');
    await runner({ databaseUrl: oldUrl, dir: oldDir, migrationsTable: MIGRATIONS_TABLE, direction: 'up', checkOrder: true, singleTransaction: true, log: () => {} });
    const oldDefs = await functionDefs(oldUrl);
    // the old release's functions: the rolling-upgrade function of the release before it included
    expect([...oldDefs.values()].map((d) => d.name)).toContain('sluice_finish_and_claim');

    const up = await migrateDatabase(oldUrl);
    expect(up.migrations).toEqual(fs.readdirSync(MIGRATIONS_DIR).map((f) => f.replace(/\.sql$/, '')).filter((n) => n > LAST_OLD_MIGRATION).sort());
    expect(up.functions).toEqual(files.map((f) => f.name)); // never recorded before: all applied once
    expect(up.orphans).toEqual([]);

    const freshUrl = await emptyDatabase('fresh');
    await migrateDatabase(freshUrl);
    const [upgraded, fresh] = [await functionDefs(oldUrl), await functionDefs(freshUrl)];
    expect([...upgraded.keys()]).toEqual([...fresh.keys()]);
    for (const [sig, d] of fresh) expect(upgraded.get(sig)!.def, sig).toBe(d.def);
    expect([...upgraded.values()].map((d) => d.name)).not.toContain('sluice_finish_and_claim');
    expect(await schemaSnapshot(oldUrl)).toEqual(await schemaSnapshot(freshUrl));
    // the files are the old release's definitions, unchanged, except the functions changed
    // or added since (each named with the change that made it)
    const changedSinceOld = new Set([
      'sluice_finish', // 20261124000300000_canceled_executions: the canceled outcome
      'sluice_promote_streams', // 20261124000300000_canceled_executions: new, shared with the cancel
      'sluice_why_waiting', // new: the executions pages' read
      'sluice_claim', // the enqueue/cycle deadlock fix: now sluice_claim_rows over every owned partition
      'sluice_claim_rows', // new: the claim's body, confined to given partitions after a finish
      'sluice_cycle', // the enqueue/cycle deadlock fix: counter rows locked in one pass
      'sluice_release_keys', // 20261124210000001_priorities: released in claim order (claim_at); now a wrapper of sluice_release_rows
      'sluice_release_rows', // new: sluice_release_keys' body, shared with sluice_cycle (room net of a finish not yet written)
      'sluice_key_rate', // new: rate limits (issue #19), a key's rate with its override
      'sluice_rate_allowance', // new: rate limits (issue #19), the GCRA allowance
      'sluice_rate_cost', // new: rate limits (issue #19), an execution's cost
      'sluice_rate_due', // new: rate limits (issue #19), a scope's next slot
      'sluice_release_stranded', // new: the reconciler's release, room net of the key's claimable rows
      'sluice_release_room', // new: one room rule for sluice_release_rows and sluice_release_stranded
      'sluice_release_oldest', // new: the one UPDATE every release ends in
      'sluice_finish_rows', // new: sluice_finish's body, with the slot counters left to sluice_cycle (one upsert per cycle)
      'sluice_fold_slots', // new: slot counters folded from slot_deltas outside the task lock (20261202000100000_slot_deltas)
      'sluice_run_keys_plus', // new: a claim pass's kept rows counted as running (fair passes; the look-again round, 2026-12-02)
      'sluice_claim_floor_lower', // new: the claim floor lowered under the task lock (20261203000100000_claim_floor)
      'sluice_claim_floors', // new: each partition's effective claim floor (20261203000100000_claim_floor)
      'sluice_task_counters_init', // new: the task's task_counters row with its task_runtime row (20261207000100000_task_counters)
      'sluice_partition_outcomes_init', // new: the partition's partition_outcomes row with its partition_stats row (20261207000200000_partition_outcomes)
      'sluice_finish_partitions', // new: a finish's partition counter moves, left to a cycle's claim (one version a cycle)
      'sluice_floor_low_least', // new: the claim's floors with its cycle's finish's lowerings
    ]);
    for (const [sig, d] of upgraded) if (!changedSinceOld.has(d.name)) expect(oldDefs.get(sig)?.def, sig).toBe(d.def);
  });

  it('concurrent starters wait for each other: both succeed, each step applied once', async () => {
    const url = await emptyDatabase('race');
    const [a, b] = await Promise.all([migrateDatabase(url), migrateDatabase(url)]);
    const all = fs.readdirSync(MIGRATIONS_DIR).map((f) => f.replace(/\.sql$/, '')).sort();
    expect([a.migrations, b.migrations].sort((x, y) => y.length - x.length)).toEqual([all, []]);
    expect([a.functions, b.functions].sort((x, y) => y.length - x.length)).toEqual([files.map((f) => f.name), []]);
  });
});
