// Config versions: immutable rows numbered max+1. The number is taken under a
// transaction-scoped advisory lock, so two concurrent applies get consecutive numbers
// and `basedOn` checks (stale edit → CONFLICT) see the true latest. Rare writes; the
// reads are PK lookups or one index-backwards scan for the latest.
import type { Db } from './pool';

/** Advisory lock key space (two-int form) for config writes. */
const CONFIG_LOCK_CLASS = 0x5c0f;

export interface ConfigVersionRow {
  version: number;
  config: unknown;
  author: string;
  authorType: string;
  authorId: string | null;
  message: string;
  basedOn: number | null;
  createdAt: Date;
}

const COLUMNS = `version, config, author, author_type AS "authorType", author_id AS "authorId", message,
  based_on AS "basedOn", created_at AS "createdAt"`;

/** Serialises config writers until the end of the caller's transaction. */
export async function lockConfigWrites(db: Db): Promise<void> {
  await db.query('SELECT pg_advisory_xact_lock($1, 0)', [CONFIG_LOCK_CLASS]);
}

export async function latestConfigVersion(db: Db): Promise<ConfigVersionRow | null> {
  const r = await db.query<ConfigVersionRow>(`SELECT ${COLUMNS} FROM config_versions ORDER BY version DESC LIMIT 1`);
  return r.rows[0] ?? null;
}

export async function getConfigVersion(db: Db, version: number): Promise<ConfigVersionRow | null> {
  const r = await db.query<ConfigVersionRow>(`SELECT ${COLUMNS} FROM config_versions WHERE version = $1`, [version]);
  return r.rows[0] ?? null;
}

export async function insertConfigVersion(
  db: Db,
  v: { config: unknown; author: string; authorType: string; authorId: string | null; message: string; basedOn: number | null },
): Promise<ConfigVersionRow> {
  const r = await db.query<ConfigVersionRow>(
    `INSERT INTO config_versions (version, config, author, author_type, author_id, message, based_on)
     SELECT coalesce(max(version), 0) + 1, $1, $2, $3, $4, $5, $6 FROM config_versions
     RETURNING ${COLUMNS}`,
    [JSON.stringify(v.config), v.author, v.authorType, v.authorId, v.message, v.basedOn],
  );
  return r.rows[0]!;
}

/** The latest version's fleet `defaults:` as stored (null: none, or no config yet); one index-backwards read. */
export async function latestFleetDefaultsJson(db: Db): Promise<unknown> {
  const r = await db.query<{ defaults: unknown }>(`SELECT config -> 'defaults' AS defaults FROM config_versions ORDER BY version DESC LIMIT 1`);
  return r.rows[0]?.defaults ?? null;
}

/** NOTIFY in the caller's transaction: delivered only if it commits. */
export async function notifyConfigVersion(db: Db, version: number): Promise<void> {
  await db.query(`SELECT pg_notify('sluice_config', $1)`, [String(version)]);
}

export const CONFIG_CHANNEL = 'sluice_config';
