// Reads a purge preview's frozen dead letters in id order, a page at a time (keyset on
// dead_letter_id through the items' primary key), for the JSON-lines export that an
// operator may download before purging. Whole rows: payload and stack included.
import type { Db } from './pool';
import type { DeadLetterRow } from './get-dead-letter';

/** A frozen dead letter as exported: the detail row without its replay's current state. */
export type ExportedDeadLetter = Omit<DeadLetterRow, 'replayExecutionState'>;

export async function readFrozenSetPage(db: Db, previewId: string, afterId: number, limit: number): Promise<ExportedDeadLetter[]> {
  const r = await db.query<ExportedDeadLetter>(
    `SELECT d.id, d.execution_id AS "executionId", d.task, d.payload, d.groups, d.stream_key AS "streamKey",
            d.idempotency_key AS "idempotencyKey", d.partition, d.attempts, d.last_error AS "lastError", d.stack,
            d.fingerprint, d.enqueued_at AS "enqueuedAt", d.dead_at AS "deadAt", d.replayed_at AS "replayedAt",
            d.replay_execution_id AS "replayExecutionId"
       FROM dlq_purge_preview_items p JOIN dead_letters d ON d.id = p.dead_letter_id
      WHERE p.preview_id = $1 AND p.dead_letter_id > $2
      ORDER BY p.dead_letter_id
      LIMIT $3`,
    [previewId, afterId, limit],
  );
  return r.rows;
}
