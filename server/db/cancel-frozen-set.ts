// Cancel by filter, step 2: cancel exactly the frozen ids of a preview, once (as the DLQ's
// purge-frozen-set.ts):
//   1. lock the preview row (FOR UPDATE): two applies of one preview serialise here and the
//      second sees applied_at set;
//   2. cancelExecutions on the frozen ids (nothing mentions the filter: executions that
//      match it but arrived after the preview are not in the item table and stay);
//   3. mark the preview applied.
// A frozen id that has finished meanwhile is left alone; one that started running is asked
// to cancel only when the filter named `running` (else it is left to finish).
import type { Db } from './pool';
import { deleteExpiredPreviews, readFrozenSetPreview, type FrozenSetPreviewRow } from './frozen-set-preview';
import { cancelExecutions, type CancelOutcome } from './cancel-executions';

export interface CancelPreviewRow extends FrozenSetPreviewRow {
  task: string;
  appliedAt: Date | null;
  appliedCount: number | null;
  appliedByLabel: string | null;
}

export function getCancelPreview(db: Db, id: string, opts: { lock?: boolean } = {}): Promise<CancelPreviewRow | null> {
  return readFrozenSetPreview<CancelPreviewRow>(db, 'execution_cancel_previews', id, opts);
}

/** Must run in a transaction that has locked the preview (getCancelPreview with lock). */
export async function cancelFrozenSet(
  db: Db,
  preview: Pick<CancelPreviewRow, 'id' | 'task'>,
  byLabel: string,
  opts: { includeRunning: boolean },
): Promise<CancelOutcome[]> {
  const ids = await db.query<{ id: number }>(
    'SELECT execution_id AS id FROM execution_cancel_preview_items WHERE preview_id = $1 ORDER BY execution_id',
    [preview.id],
  );
  const out = await cancelExecutions(db, preview.task, ids.rows.map((r) => r.id), opts);
  await db.query(
    `UPDATE execution_cancel_previews SET applied_at = now(), applied_count = $2, applied_by_label = $3 WHERE id = $1`,
    [preview.id, out.length, byLabel],
  );
  return out;
}

/** Drops previews that expired more than `keepHours` ago; items cascade. */
export function deleteOldCancelPreviews(db: Db, keepHours: number): Promise<number> {
  return deleteExpiredPreviews(db, 'execution_cancel_previews', keepHours);
}
