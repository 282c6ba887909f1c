// Hostile variants of a valid input, for the hostile-input tests of every tRPC procedure
// and REST route: each string leaf replaced by NUL / a lone surrogate / a huge string / a
// value nested 5,000 levels deep, an unknown field added to each object, and a hostile
// key added to each open map (payloads, groups, overrides). Plus the snapshot that proves
// a refused request wrote nothing.
import type pg from 'pg';

export const DEEP_LEVELS = 5000;

/** {a: {a: … 1}} nested `levels` deep, built without recursion. */
export function deepValue(levels = DEEP_LEVELS): unknown {
  let v: unknown = 1;
  for (let i = 0; i < levels; i++) v = { a: v };
  return v;
}

export type PathSeg = string | number;

export interface Variant {
  /** e.g. "payload.tenant: NUL" */
  label: string;
  /** Where the hostile part is (the field a good answer names). */
  path: PathSeg[];
  /** For an added key: its name, which the answer may name instead of a path below it. */
  key?: string;
  input: unknown;
  /** Has a value nested DEEP_LEVELS deep (JSON.stringify cannot write it; see toJson). */
  deep?: boolean;
}

export const HOSTILE_STRINGS: { name: string; value: () => string }[] = [
  { name: 'NUL', value: () => 'a\u0000b' },
  { name: 'lone surrogate', value: () => 'x\ud800' },
  { name: 'huge string (1 MB)', value: () => 'x'.repeat(1_000_000) },
];

function setAt(root: unknown, path: PathSeg[], value: unknown): unknown {
  const copy = structuredClone(root);
  if (path.length === 0) return value;
  let o = copy as Record<PathSeg, unknown>;
  for (const seg of path.slice(0, -1)) o = o[seg] as Record<PathSeg, unknown>;
  o[path[path.length - 1]!] = value;
  return copy;
}

function addKey(root: unknown, path: PathSeg[], key: string, value: unknown): unknown {
  const copy = structuredClone(root) as Record<PathSeg, unknown>;
  let o = copy;
  for (const seg of path) o = o[seg] as Record<PathSeg, unknown>;
  o[key] = value;
  return copy;
}

const same = (a: PathSeg[], b: PathSeg[]) => a.length === b.length && a.every((x, i) => String(x) === String(b[i]));

/**
 * Every hostile variant of `valid`. `openMaps` are the object paths whose keys are data
 * (a payload, groups, overrides): an extra key there is legitimate, a hostile key is not.
 * Inside an open map, paths are given as a prefix: everything below `payload` is open.
 */
export function hostileVariants(valid: unknown, openMaps: PathSeg[][] = []): Variant[] {
  const out: Variant[] = [];
  const isOpen = (p: PathSeg[]) => openMaps.some((m) => m.length <= p.length && same(m, p.slice(0, m.length)));
  const walk = (v: unknown, path: PathSeg[]) => {
    const where = path.join('.') || '(root)';
    if (typeof v === 'string') {
      for (const h of HOSTILE_STRINGS) out.push({ label: `${where}: ${h.name}`, path, input: setAt(valid, path, h.value()) });
      out.push({ label: `${where}: nested ${DEEP_LEVELS} deep`, path, input: setAt(valid, path, deepValue()), deep: true });
    } else if (Array.isArray(v)) {
      v.forEach((x, i) => walk(x, [...path, i]));
    } else if (typeof v === 'object' && v !== null) {
      if (!isOpen(path)) out.push({ label: `${where}: unknown field`, path, key: 'unknownField', input: addKey(valid, path, 'unknownField', 'x') });
      else {
        out.push({ label: `${where}: key with NUL`, path, input: addKey(valid, path, 'k\u0000', 'v') });
        out.push({ label: `${where}: key with lone surrogate`, path, input: addKey(valid, path, 'k\udfff', 'v') });
        out.push({ label: `${where}: value nested ${DEEP_LEVELS} deep`, path, input: addKey(valid, path, 'deep', deepValue()), deep: true });
      }
      for (const [k, x] of Object.entries(v)) walk(x, [...path, k]);
    }
  };
  walk(valid, []);
  return out;
}

/** JSON text of a variant; a deep value is written by hand (JSON.stringify overflows on it). */
export function toJson(v: unknown): string {
  const MARK = '__deep_value_marker__';
  const deep = deepValue();
  const text = JSON.stringify(v, (_k, x) => (x === deep || isDeep(x) ? MARK : x));
  return text.replaceAll(`"${MARK}"`, '{"a":'.repeat(DEEP_LEVELS) + '1' + '}'.repeat(DEEP_LEVELS));
}

function isDeep(x: unknown): boolean {
  let v = x;
  for (let i = 0; i < 100; i++) {
    if (typeof v !== 'object' || v === null || Array.isArray(v) || Object.keys(v).length !== 1 || !('a' in v)) return false;
    v = (v as { a: unknown }).a;
  }
  return true;
}

/**
 * The answer names the hostile field: a field error at it or above it (its path a run of
 * the field's path segments: services validate parts of an input, e.g. a dead-letter
 * filter reports `filter.q` for the input's `scope.filter.q`), or the added key's name.
 */
export function namesField(fieldErrors: { path: string; message: string }[], message: string, variant: Variant): boolean {
  if (variant.key && (message.includes(variant.key) || fieldErrors.some((f) => f.message.includes(variant.key!)))) return true;
  const target = variant.path.map(String);
  return fieldErrors.some((f) => {
    if (f.path === '') return false;
    const segs = f.path.split('.');
    // Aligned somewhere, the error's path and the field's agree where they overlap.
    for (let i = 0; i < target.length; i++) {
      const n = Math.min(segs.length, target.length - i);
      if (segs.slice(0, n).every((s, j) => s === target[i + j])) return true;
    }
    return false;
  });
}

/**
 * A fingerprint of every row of every table: equal before and after a request proves it
 * wrote nothing (no insert, update or delete anywhere).
 */
export async function databaseFingerprint(pool: pg.Pool): Promise<string> {
  const tables = (
    await pool.query<{ t: string }>(
      `SELECT quote_ident(tablename) AS t FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'sluice_migrations' ORDER BY 1`,
    )
  ).rows.map((r) => r.t);
  // A token's last_used_at moves when it authenticates a request: the request's auth, not its input.
  const row = (t: string) => (t === 'api_tokens' ? `(to_jsonb(x) - 'last_used_at')::text` : 'x::text');
  const sql = tables
    .map((t) => `SELECT '${t}' AS t, count(*) AS n, md5(coalesce(string_agg(${row(t)}, '|' ORDER BY ${row(t)}), '')) AS h FROM ${t} x`)
    .join(' UNION ALL ');
  const r = await pool.query<{ t: string; n: string; h: string }>(sql);
  return r.rows.map((x) => `${x.t}:${x.n}:${x.h}`).join('\n');
}

/** Which tables differ between two fingerprints. */
export function changedTables(before: string, after: string): string[] {
  const a = new Map(before.split('\n').map((l) => [l.split(':')[0]!, l]));
  return after
    .split('\n')
    .filter((l) => a.get(l.split(':')[0]!) !== l)
    .map((l) => l.split(':')[0]!);
}
