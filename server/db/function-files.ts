// The engine's database functions as source: one file per function under
// server/db/sql/functions/<name>.sql, holding its current definition, written as
// pg_get_functiondef prints it (psql's `\sf <name>`) after a header comment that says
// why it is shaped so and what was measured. The history of a function is the
// `git log -p` of its file; the migrations carry schema changes only.
//
// applyFunctionFiles is the repeatable step of server/db/migrate.ts (Flyway's
// "repeatable migrations"): a file whose checksum differs from the one recorded in
// sluice_function_files (or that was never recorded) is executed (CREATE OR REPLACE),
// and its new checksum recorded; an unchanged file is skipped. Running it twice changes
// nothing. docs/architecture.md § "Database functions" says how to add or change one.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { withTransaction } from './pool';

export const FUNCTIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'sql', 'functions');
export const FUNCTIONS_TABLE = 'sluice_function_files';

export interface FunctionFile {
  /** the function's name = the file's name without .sql */
  name: string;
  file: string;
  /** the whole file, header included: what is executed and checksummed */
  text: string;
  /** the CREATE OR REPLACE FUNCTION statement without the header and the final `;`,
   *  as pg_get_functiondef prints it (the drift test compares the two) */
  definition: string;
  checksum: string;
}

const CREATE_RE = /^CREATE OR REPLACE FUNCTION public\.([a-z0-9_]+)\(/gm;

/** Reads and checks every <name>.sql of the folder, sorted by name. A file must hold
 *  exactly one `CREATE OR REPLACE FUNCTION public.<name>(` (its own name) after its
 *  header comment, and nothing after the definition's final `;`. */
export function loadFunctionFiles(dir: string = FUNCTIONS_DIR): FunctionFile[] {
  const files = readdirSync(dir).filter((f) => f.endsWith('.sql')).sort();
  return files.map((f) => {
    const file = path.join(dir, f);
    const name = f.slice(0, -'.sql'.length);
    const text = readFileSync(file, 'utf8');
    const creates = [...text.matchAll(CREATE_RE)];
    if (creates.length !== 1 || creates[0]![1] !== name) {
      throw new Error(`${file}: must define exactly one function, CREATE OR REPLACE FUNCTION public.${name}(…) (found ${creates.map((m) => m[1]).join(', ') || 'none'})`);
    }
    const start = creates[0]!.index!;
    const header = text.slice(0, start);
    if (header.split('\n').some((line) => line.trim() !== '' && !line.startsWith('--'))) {
      throw new Error(`${file}: only comment lines may come before CREATE OR REPLACE FUNCTION`);
    }
    const body = text.slice(start).trimEnd();
    if (!body.endsWith('$function$;')) {
      throw new Error(`${file}: must end with the definition's closing "$function$;" (dollar quote as pg_get_functiondef prints it)`);
    }
    return {
      name,
      file,
      text,
      definition: body.slice(0, -1),
      checksum: createHash('sha256').update(text).digest('hex'),
    };
  });
}

/** What pg_get_functiondef prints, without the trailing newline: the drift test's
 *  other side. */
export function normalizeFunctionDef(def: string): string {
  return def.trimEnd();
}

export interface AppliedFunctions {
  applied: string[];
  /** functions named sluice_* in the database with no file (a deleted file whose DROP
   *  migration has not been written: see docs/architecture.md) */
  orphans: string[];
}

/**
 * The repeatable step. Runs in ONE transaction on `client`, which must already hold
 * the migration advisory lock (server/db/migrate.ts takes it around the schema
 * migrations and this step, so concurrent starters run them one after the other).
 * check_function_bodies is off for the transaction (as pg_dump does), so the files can
 * be applied in name order even when a LANGUAGE sql body calls a function defined in a
 * later file.
 */
export async function applyFunctionFiles(
  client: pg.ClientBase,
  files: FunctionFile[] = loadFunctionFiles(),
  log: (m: string) => void = () => {},
): Promise<AppliedFunctions> {
  return withTransaction(client, async (client) => {
    await client.query(`CREATE TABLE IF NOT EXISTS ${FUNCTIONS_TABLE} (
      name        text PRIMARY KEY,
      checksum    text NOT NULL,
      applied_at  timestamptz NOT NULL DEFAULT now()
    )`);
    await client.query('SET LOCAL check_function_bodies = off');
    const recorded = new Map(
      (await client.query<{ name: string; checksum: string }>(`SELECT name, checksum FROM ${FUNCTIONS_TABLE}`)).rows.map(
        (r) => [r.name, r.checksum],
      ),
    );
    const applied: string[] = [];
    for (const f of files) {
      if (recorded.get(f.name) === f.checksum) continue;
      await client.query(f.text);
      await client.query(
        `INSERT INTO ${FUNCTIONS_TABLE} (name, checksum, applied_at) VALUES ($1, $2, now())
         ON CONFLICT (name) DO UPDATE SET checksum = excluded.checksum, applied_at = excluded.applied_at`,
        [f.name, f.checksum],
      );
      applied.push(f.name);
      log(`> function ${f.name} (${f.checksum.slice(0, 12)})`);
    }
    // A record whose file is gone is forgotten once its function is gone too (dropped by
    // a schema migration); a function still present without a file is reported.
    const names = files.map((f) => f.name);
    const existing = (await client.query<{ name: string }>(
      `SELECT DISTINCT p.proname AS name FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
        WHERE n.nspname = 'public' AND p.proname LIKE 'sluice\\_%'`,
    )).rows.map((r) => r.name);
    await client.query(`DELETE FROM ${FUNCTIONS_TABLE} WHERE name <> ALL ($1::text[]) AND name <> ALL ($2::text[])`, [names, existing]);
    const orphans = existing.filter((n) => !names.includes(n)).sort();
    return { applied, orphans };
  });
}
