// prisma/schema.prisma must mirror the SQL migrations: same tables, columns, types,
// nullability and primary keys. The database side is a freshly migrated test database;
// the Prisma side is Prisma's own DMMF, regenerated here so a stale file can't hide drift.
import { describe, it, expect, beforeAll } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { testDatabase } from './db';
import {
  compareSchemas,
  shapeFromDatabase,
  shapeFromDmmf,
  type DmmfDatamodel,
  type SchemaShape,
} from '../support/schema-drift';

const root = path.resolve(import.meta.dirname, '..', '..');

function loadDmmf(): DmmfDatamodel {
  const r = spawnSync(process.execPath, [path.join(root, 'scripts', 'prisma-generate.mjs')], {
    cwd: root,
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`prisma generate failed:\n${r.stdout}\n${r.stderr}`);
  return JSON.parse(readFileSync(path.join(root, 'server', 'db', 'generated', 'dmmf', 'dmmf.json'), 'utf8'));
}

describe('schema drift: SQL migrations vs prisma/schema.prisma', () => {
  let sql: SchemaShape;
  let prisma: SchemaShape;
  let db: Awaited<ReturnType<typeof testDatabase>>;

  beforeAll(async () => {
    db = await testDatabase();
    sql = await shapeFromDatabase(db.pool);
    prisma = shapeFromDmmf(loadDmmf());
  });

  it('has no differences', () => {
    const problems = compareSchemas(sql, prisma);
    expect(problems, `schema.prisma and the migrations disagree:\n  ${problems.join('\n  ')}`).toEqual([]);
  });

  it('sees the foundation tables on both sides (the comparison is not vacuous)', () => {
    for (const t of ['users', 'sessions', 'api_tokens', 'audit_log', 'login_throttle']) {
      expect(Object.keys(sql)).toContain(t);
      expect(Object.keys(prisma)).toContain(t);
    }
    expect(sql.sluice_migrations).toBeUndefined();
    expect(sql.users?.columns.email).toEqual({ type: 'text', nullable: false });
    expect(prisma.users?.columns.last_login_at).toEqual({ type: 'timestamp with time zone(6)', nullable: true });
    expect(sql.audit_log?.primaryKey).toEqual(['id']);
  });

  // Synthetic mismatches applied to the real, agreeing shapes: each must be reported,
  // by name, and nothing else.
  const cases: Array<{ name: string; mutate: (sql: SchemaShape, prisma: SchemaShape) => void; expected: string }> = [
    {
      name: 'a column added to SQL but not the schema',
      mutate: (s) => {
        s.users!.columns.nickname = { type: 'text', nullable: true };
      },
      expected: 'column users.nickname: exists in SQL but is missing from the Prisma model',
    },
    {
      name: 'a column in the schema but not in SQL',
      mutate: (_s, p) => {
        p.sessions!.columns.device = { type: 'text', nullable: true };
      },
      expected: 'column sessions.device: in the Prisma model but missing from SQL',
    },
    {
      name: 'a table only in SQL',
      mutate: (s) => {
        s.widgets = { columns: { id: { type: 'bigint', nullable: false } }, primaryKey: ['id'] };
      },
      expected: 'table widgets: exists in SQL but has no Prisma model',
    },
    {
      name: 'a model without a table',
      mutate: (_s, p) => {
        p.gadgets = { columns: { id: { type: 'uuid', nullable: false } }, primaryKey: ['id'] };
      },
      expected: 'table gadgets: has a Prisma model but no table in SQL',
    },
    {
      name: 'a type mismatch',
      mutate: (s) => {
        s.login_throttle!.columns.failures = { type: 'bigint', nullable: false };
      },
      expected: 'column login_throttle.failures: type mismatch — SQL bigint, Prisma integer',
    },
    {
      name: 'a timestamp precision / time zone mismatch',
      mutate: (_s, p) => {
        p.audit_log!.columns.at = { type: 'timestamp without time zone(3)', nullable: false };
      },
      expected:
        'column audit_log.at: type mismatch — SQL timestamp with time zone(6), Prisma timestamp without time zone(3)',
    },
    {
      name: 'a nullability mismatch',
      mutate: (_s, p) => {
        p.api_tokens!.columns.name = { type: 'text', nullable: true };
      },
      expected: 'column api_tokens.name: nullability mismatch — SQL NOT NULL, Prisma optional',
    },
    {
      name: 'a primary key mismatch',
      mutate: (s) => {
        s.login_throttle!.primaryKey = ['key', 'window_start'];
      },
      expected: 'table login_throttle: primary key mismatch — SQL (key, window_start), Prisma (key)',
    },
  ];

  // Relative to whatever real drift exists right now, so these cases test the comparison
  // even while the first test is red.
  function newProblems(s: SchemaShape, p: SchemaShape): string[] {
    const baseline = compareSchemas(sql, prisma);
    const after = compareSchemas(s, p);
    expect(baseline.filter((b) => !after.includes(b))).toEqual([]);
    return after.filter((a) => !baseline.includes(a));
  }

  it.each(cases)('reports $name', ({ mutate, expected }) => {
    const s = structuredClone(sql);
    const p = structuredClone(prisma);
    mutate(s, p);
    expect(newProblems(s, p)).toEqual([expected]);
  });

  it('fails on a real column added in SQL only (ALTER TABLE on the test database)', async () => {
    await db.pool.query('ALTER TABLE users ADD COLUMN nickname text');
    try {
      expect(newProblems(await shapeFromDatabase(db.pool), prisma)).toEqual([
        'column users.nickname: exists in SQL but is missing from the Prisma model',
      ]);
    } finally {
      await db.pool.query('ALTER TABLE users DROP COLUMN nickname');
    }
  });

  it('maps Prisma fields to Postgres types the way Prisma creates them', () => {
    const shape = shapeFromDmmf({
      enums: [{ name: 'Mood', dbName: 'mood' }],
      models: [
        {
          name: 'T',
          dbName: 't',
          primaryKey: { fields: ['a', 'b'] },
          fields: [
            { name: 'a', kind: 'scalar', type: 'String', isList: false, isRequired: true, isId: false, nativeType: null },
            { name: 'b', dbName: 'b_col', kind: 'scalar', type: 'Int', isList: false, isRequired: true, isId: false },
            { name: 'c', kind: 'scalar', type: 'DateTime', isList: false, isRequired: false, isId: false },
            { name: 'd', kind: 'scalar', type: 'String', isList: true, isRequired: true, isId: false, nativeType: ['VarChar', ['20']] },
            { name: 'e', kind: 'enum', type: 'Mood', isList: false, isRequired: true, isId: false },
            { name: 'f', kind: 'object', type: 'Other', isList: false, isRequired: true, isId: false },
          ],
        },
      ],
    });
    expect(shape).toEqual({
      t: {
        primaryKey: ['a', 'b_col'],
        columns: {
          a: { type: 'text', nullable: false },
          b_col: { type: 'integer', nullable: false },
          c: { type: 'timestamp without time zone(3)', nullable: true },
          d: { type: 'character varying(20)[]', nullable: false },
          e: { type: 'USER-DEFINED(mood)', nullable: false },
        },
      },
    });
  });
});
