// Step 2 of a purge: delete exactly the frozen ids of a preview, once.
//   1. lock the preview row (FOR UPDATE) — two purges of one preview serialise here and
//      the second sees purged_at set;
//   2. DELETE FROM dead_letters USING dlq_purge_preview_items (join on the primary keys),
//      RETURNING the task so the audit record can say how many per task;
//   3. mark the preview purged.
// Nothing in the statement mentions the filter: rows that matched it but arrived after
// the preview are not in the item table and stay. Rows of the set that are already gone
// (replayed and trimmed, purged by another preview) are simply not counted.
import type { Db } from './pool';
import { deleteExpiredPreviews, readFrozenSetPreview, type FrozenSetPreviewRow } from './frozen-set-preview';

export interface PurgePreviewRow extends FrozenSetPreviewRow {
  scope: 'ids' | 'filter';
  /** which action the set may be applied to (a replay preview is applied by a replay job) */
  purpose: 'purge' | 'replay';
  /** when it was applied (purged, or made into a replay job) */
  purgedAt: Date | null;
  purgedCount: number | null;
  purgedByLabel: string | null;
}

export function getPurgePreview(db: Db, id: string, opts: { lock?: boolean } = {}): Promise<PurgePreviewRow | null> {
  return readFrozenSetPreview<PurgePreviewRow>(db, 'dlq_purge_previews', id, opts);
}

/** Must run in a transaction that has locked the preview (getPurgePreview with lock). */
export async function purgeFrozenSet(
  db: Db,
  previewId: string,
  byLabel: string,
): Promise<{ deleted: number; byTask: { task: string; count: number }[] }> {
  const r = await db.query<{ task: string; count: number }>(
    `WITH del AS (
       DELETE FROM dead_letters d USING dlq_purge_preview_items p
        WHERE p.preview_id = $1 AND d.id = p.dead_letter_id
       RETURNING d.task
     )
     SELECT task, count(*)::int AS count FROM del GROUP BY task ORDER BY count(*) DESC, task`,
    [previewId],
  );
  const deleted = r.rows.reduce((a, x) => a + x.count, 0);
  await markPreviewApplied(db, previewId, deleted, byLabel);
  return { deleted, byTask: r.rows };
}

/** Marks a preview used (purged, or made into a replay job): a second apply sees purged_at. */
export async function markPreviewApplied(db: Db, previewId: string, count: number, byLabel: string): Promise<void> {
  await db.query(`UPDATE dlq_purge_previews SET purged_at = now(), purged_count = $2, purged_by_label = $3 WHERE id = $1`, [previewId, count, byLabel]);
}

/** Drops previews that expired unused (or were used) more than `keepHours` ago; items cascade. */
export function deleteOldPurgePreviews(db: Db, keepHours: number): Promise<number> {
  return deleteExpiredPreviews(db, 'dlq_purge_previews', keepHours);
}
