// Schema drift between the SQL migrations (the truth, applied by node-pg-migrate) and
// prisma/schema.prisma (what the Prisma client believes). Both sides are reduced to the
// same shape — tables → columns {type, nullable} + primary key — and compared; every
// difference becomes one human-readable line naming the table and column.
//
// The Prisma side comes from Prisma's own DMMF (scripts/prisma-dmmf-generator.mjs writes
// it on `prisma generate`), so this compares what Prisma parsed, not a re-parse.
import type pg from 'pg';

export interface ColumnShape {
  /** information_schema.columns.data_type, plus precision/length where it matters, e.g. `timestamp with time zone(6)` */
  type: string;
  nullable: boolean;
}

export interface TableShape {
  columns: Record<string, ColumnShape>;
  primaryKey: string[];
}

export type SchemaShape = Record<string, TableShape>;

/** Tables that exist in SQL only by design. */
export const IGNORED_TABLES = new Set(['sluice_migrations', 'sluice_function_files']);

// ---- Prisma side --------------------------------------------------------------------

export interface DmmfField {
  name: string;
  dbName?: string | null;
  kind: 'scalar' | 'object' | 'enum' | 'unsupported';
  type: string;
  isList: boolean;
  isRequired: boolean;
  isId: boolean;
  nativeType?: [string, string[]] | null;
}

export interface DmmfModel {
  name: string;
  dbName: string | null;
  fields: DmmfField[];
  primaryKey: { fields: string[] } | null;
}

export interface DmmfDatamodel {
  models: DmmfModel[];
  enums: { name: string; dbName?: string | null }[];
}

// Prisma scalar type → Postgres data_type when the field has no @db.* attribute.
const DEFAULT_TYPES: Record<string, string> = {
  String: 'text',
  Boolean: 'boolean',
  Int: 'integer',
  BigInt: 'bigint',
  Float: 'double precision',
  Decimal: 'numeric',
  DateTime: 'timestamp without time zone(3)',
  Json: 'jsonb',
  Bytes: 'bytea',
};

// @db.<Native> → Postgres data_type.
const NATIVE_TYPES: Record<string, string> = {
  Text: 'text',
  Uuid: 'uuid',
  VarChar: 'character varying',
  Char: 'character',
  Inet: 'inet',
  Citext: 'citext',
  Xml: 'xml',
  Bit: 'bit',
  VarBit: 'bit varying',
  Boolean: 'boolean',
  SmallInt: 'smallint',
  Integer: 'integer',
  Oid: 'oid',
  BigInt: 'bigint',
  DoublePrecision: 'double precision',
  Real: 'real',
  Decimal: 'numeric',
  Money: 'money',
  Timestamp: 'timestamp without time zone',
  Timestamptz: 'timestamp with time zone',
  Date: 'date',
  Time: 'time without time zone',
  Timetz: 'time with time zone',
  Json: 'json',
  JsonB: 'jsonb',
  ByteA: 'bytea',
};

const TIME_TYPES = new Set([
  'timestamp without time zone',
  'timestamp with time zone',
  'time without time zone',
  'time with time zone',
]);

function prismaColumnType(field: DmmfField, enumDbNames: Map<string, string>): string {
  let base: string;
  if (field.kind === 'enum') {
    base = `USER-DEFINED(${enumDbNames.get(field.type) ?? field.type})`;
  } else if (field.nativeType) {
    const [native, args] = field.nativeType;
    base = NATIVE_TYPES[native] ?? `@db.${native}`;
    if (TIME_TYPES.has(base)) base += `(${args[0] ?? '6'})`;
    else if ((base === 'character varying' || base === 'character') && args[0]) base += `(${args[0]})`;
  } else {
    base = DEFAULT_TYPES[field.type] ?? `Prisma ${field.type}`;
  }
  return field.isList ? `${base}[]` : base;
}

export function shapeFromDmmf(dm: DmmfDatamodel): SchemaShape {
  const enumDbNames = new Map(dm.enums.map((e) => [e.name, e.dbName ?? e.name]));
  const out: SchemaShape = {};
  for (const model of dm.models) {
    const columns: Record<string, ColumnShape> = {};
    const pk: string[] = [];
    for (const f of model.fields) {
      if (f.kind === 'object') continue; // relation fields have no column
      const col = f.dbName ?? f.name;
      columns[col] = { type: prismaColumnType(f, enumDbNames), nullable: !f.isRequired };
      if (f.isId) pk.push(col);
    }
    if (model.primaryKey) {
      for (const name of model.primaryKey.fields) {
        const f = model.fields.find((x) => x.name === name);
        pk.push(f?.dbName ?? name);
      }
    }
    out[model.dbName ?? model.name] = { columns, primaryKey: pk };
  }
  return out;
}

// ---- Database side ------------------------------------------------------------------

export async function shapeFromDatabase(db: pg.Pool | pg.PoolClient, schema = 'public'): Promise<SchemaShape> {
  // Ordinary tables and partitioned parents; partitions of a partitioned table are an
  // implementation detail of the parent and have no model of their own.
  const tables = await db.query<{ table_name: string }>(
    `SELECT c.relname AS table_name
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND c.relkind IN ('r', 'p') AND NOT c.relispartition`,
    [schema],
  );
  const columns = await db.query<{
    table_name: string;
    column_name: string;
    data_type: string;
    udt_name: string;
    is_nullable: 'YES' | 'NO';
    datetime_precision: number | null;
    character_maximum_length: number | null;
  }>(
    `SELECT table_name, column_name, data_type, udt_name, is_nullable, datetime_precision, character_maximum_length
       FROM information_schema.columns WHERE table_schema = $1 ORDER BY table_name, ordinal_position`,
    [schema],
  );
  const pks = await db.query<{ table_name: string; column_name: string }>(
    `SELECT tc.table_name, kcu.column_name
       FROM information_schema.table_constraints tc
       JOIN information_schema.key_column_usage kcu
         ON kcu.constraint_schema = tc.constraint_schema AND kcu.constraint_name = tc.constraint_name
        AND kcu.table_name = tc.table_name
      WHERE tc.table_schema = $1 AND tc.constraint_type = 'PRIMARY KEY'
      ORDER BY tc.table_name, kcu.ordinal_position`,
    [schema],
  );
  const out: SchemaShape = {};
  for (const { table_name } of tables.rows) {
    if (!IGNORED_TABLES.has(table_name)) out[table_name] = { columns: {}, primaryKey: [] };
  }
  for (const c of columns.rows) {
    const t = out[c.table_name];
    if (!t) continue;
    t.columns[c.column_name] = { type: dbColumnType(c), nullable: c.is_nullable === 'YES' };
  }
  for (const p of pks.rows) out[p.table_name]?.primaryKey.push(p.column_name);
  return out;
}

function dbColumnType(c: {
  data_type: string;
  udt_name: string;
  datetime_precision: number | null;
  character_maximum_length: number | null;
}): string {
  if (c.data_type === 'ARRAY') {
    // udt_name of an array is the element type's internal name with a leading underscore.
    const el = c.udt_name.replace(/^_/, '');
    return `${INTERNAL_TO_DATA_TYPE[el] ?? el}[]`;
  }
  if (c.data_type === 'USER-DEFINED') {
    return c.udt_name === 'citext' ? 'citext' : `USER-DEFINED(${c.udt_name})`;
  }
  if (TIME_TYPES.has(c.data_type)) return `${c.data_type}(${c.datetime_precision ?? 6})`;
  if ((c.data_type === 'character varying' || c.data_type === 'character') && c.character_maximum_length !== null) {
    return `${c.data_type}(${c.character_maximum_length})`;
  }
  return c.data_type;
}

const INTERNAL_TO_DATA_TYPE: Record<string, string> = {
  text: 'text',
  int2: 'smallint',
  int4: 'integer',
  int8: 'bigint',
  float4: 'real',
  float8: 'double precision',
  bool: 'boolean',
  uuid: 'uuid',
  jsonb: 'jsonb',
  json: 'json',
  numeric: 'numeric',
  varchar: 'character varying',
  timestamptz: 'timestamp with time zone(6)',
  timestamp: 'timestamp without time zone(6)',
  bytea: 'bytea',
};

// ---- Comparison ---------------------------------------------------------------------

/** Every difference between the database (SQL) and the Prisma models, one line each. */
export function compareSchemas(sql: SchemaShape, prisma: SchemaShape): string[] {
  const problems: string[] = [];
  const tables = [...new Set([...Object.keys(sql), ...Object.keys(prisma)])].sort();
  for (const table of tables) {
    const s = sql[table];
    const p = prisma[table];
    if (!p) {
      problems.push(`table ${table}: exists in SQL but has no Prisma model`);
      continue;
    }
    if (!s) {
      problems.push(`table ${table}: has a Prisma model but no table in SQL`);
      continue;
    }
    const cols = [...new Set([...Object.keys(s.columns), ...Object.keys(p.columns)])].sort();
    for (const col of cols) {
      const sc = s.columns[col];
      const pc = p.columns[col];
      if (!pc) {
        problems.push(`column ${table}.${col}: exists in SQL but is missing from the Prisma model`);
        continue;
      }
      if (!sc) {
        problems.push(`column ${table}.${col}: in the Prisma model but missing from SQL`);
        continue;
      }
      if (sc.type !== pc.type) {
        problems.push(`column ${table}.${col}: type mismatch — SQL ${sc.type}, Prisma ${pc.type}`);
      }
      if (sc.nullable !== pc.nullable) {
        problems.push(
          `column ${table}.${col}: nullability mismatch — SQL ${sc.nullable ? 'NULL' : 'NOT NULL'}, Prisma ${pc.nullable ? 'optional' : 'required'}`,
        );
      }
    }
    const spk = [...s.primaryKey].sort().join(', ');
    const ppk = [...p.primaryKey].sort().join(', ');
    if (spk !== ppk) {
      problems.push(`table ${table}: primary key mismatch — SQL (${spk || 'none'}), Prisma (${ppk || 'none'})`);
    }
  }
  return problems;
}
