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
import { cancelExecutions, type CancelOutcome } from './cancel-executions';

export interface CancelPreviewRow {
  id: string;
  task: string;
  filter: unknown;
  total: number;
  createdByLabel: string;
  createdAt: Date;
  expiresAt: Date;
  appliedAt: Date | null;
  appliedCount: number | null;
  appliedByLabel: string | null;
  expired: boolean;
}

const PREVIEW_COLUMNS = `id, task, filter, total, created_by_label AS "createdByLabel", created_at AS "createdAt",
  expires_at AS "expiresAt", applied_at AS "appliedAt", applied_count AS "appliedCount", applied_by_label AS "appliedByLabel",
  expires_at <= now() AS expired`;

export async function getCancelPreview(db: Db, id: string, opts: { lock?: boolean } = {}): Promise<CancelPreviewRow | null> {
  const r = await db.query<CancelPreviewRow>(
    `SELECT ${PREVIEW_COLUMNS} FROM execution_cancel_previews WHERE id = $1${opts.lock ? ' FOR UPDATE' : ''}`,
    [id],
  );
  return r.rows[0] ?? null;
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
export async function deleteOldCancelPreviews(db: Db, keepHours: number): Promise<number> {
  const r = await db.query(`DELETE FROM execution_cancel_previews WHERE expires_at < now() - make_interval(hours => $1)`, [keepHours]);
  return r.rowCount ?? 0;
}
