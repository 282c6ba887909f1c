// The preview rows of the two frozen-set actions — the DLQ purge (dlq_purge_previews,
// purge-frozen-set.ts) and the executions' cancel by filter (execution_cancel_previews,
// cancel-frozen-set.ts): one reader, and one clean-up of expired previews, for both.
// A preview row says what was frozen (filter, total), by whom, until when, and whether it
// was applied; read with `lock` (FOR UPDATE) it is where two applies of one preview
// serialise, so the second sees it applied.
import type { Db } from './pool';

/** What every preview row holds. */
export interface FrozenSetPreviewRow {
  id: string;
  filter: unknown;
  total: number;
  createdByLabel: string;
  createdAt: Date;
  expiresAt: Date;
  expired: boolean;
}

/** Each preview table and the columns of its own (how it was applied, what it is scoped to). */
const OWN_COLUMNS = {
  dlq_purge_previews: `scope, purpose, purged_at AS "purgedAt", purged_count AS "purgedCount", purged_by_label AS "purgedByLabel"`,
  execution_cancel_previews: `task, applied_at AS "appliedAt", applied_count AS "appliedCount", applied_by_label AS "appliedByLabel"`,
} as const;
export type FrozenSetPreviewTable = keyof typeof OWN_COLUMNS;

const COMMON_COLUMNS = `id, filter, total, created_by_label AS "createdByLabel", created_at AS "createdAt",
  expires_at AS "expiresAt", expires_at <= now() AS expired`;

export async function readFrozenSetPreview<T extends FrozenSetPreviewRow>(
  db: Db,
  table: FrozenSetPreviewTable,
  id: string,
  opts: { lock?: boolean } = {},
): Promise<T | null> {
  const r = await db.query<T>(`SELECT ${COMMON_COLUMNS}, ${OWN_COLUMNS[table]} FROM ${table} WHERE id = $1${opts.lock ? ' FOR UPDATE' : ''}`, [id]);
  return r.rows[0] ?? null;
}

/** Drops previews that expired (used or not) more than `keepHours` ago; their items cascade. */
export async function deleteExpiredPreviews(db: Db, table: FrozenSetPreviewTable, keepHours: number): Promise<number> {
  const r = await db.query(`DELETE FROM ${table} WHERE expires_at < now() - make_interval(hours => $1)`, [keepHours]);
  return r.rowCount ?? 0;
}
