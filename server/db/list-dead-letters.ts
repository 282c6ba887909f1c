// The dead-letter browser's page: newest first, keyset pagination on (dead_at, id), never
// OFFSET, so page 500 costs what page 1 costs. Shape:
//   SELECT … FROM dead_letters d WHERE <filter> AND (d.dead_at, d.id) < (cursor)
//   ORDER BY d.dead_at DESC, d.id DESC LIMIT n + 1        (+1 tells whether a next page exists)
// With a task and/or fingerprint filter Postgres walks the matching engine index
// (task|fingerprint, dead_at DESC, id DESC) and stops after n + 1 rows; the row
// comparison is an index condition on the trailing columns. The cursor carries dead_at
// as text with microseconds (a JS Date would drop them and skip or repeat rows).
// Measured with 1M dead letters on the local PG15: see bench/dlq.ts (list p95).
// The list carries the error's first 300 characters, not the payload or stack.
import type { DeadLetterFilter } from '../core/dead-letter-filter';
import type { Db } from './pool';
import { deadLetterWhere } from './dead-letter-conditions';

export interface DeadLetterCursor {
  /** dead_at as ISO text with microseconds, e.g. 2026-11-23T10:00:00.123456Z */
  deadAt: string;
  id: number;
}

export interface DeadLetterListRow {
  id: number;
  executionId: number;
  task: string;
  fingerprint: string;
  error: string;
  attempts: number;
  partition: number;
  streamKey: string | null;
  groups: Record<string, string>;
  enqueuedAt: Date;
  deadAt: Date;
  deadAtKey: string;
  replayedAt: Date | null;
  replayExecutionId: number | null;
}

export const ERROR_PREVIEW_CHARS = 300;

export async function listDeadLetters(
  db: Db,
  filter: DeadLetterFilter,
  opts: { limit: number; cursor?: DeadLetterCursor | null },
): Promise<{ rows: DeadLetterListRow[]; more: boolean }> {
  const params: unknown[] = [];
  const where = deadLetterWhere(filter, 'd', params);
  let keyset = '';
  if (opts.cursor) {
    params.push(opts.cursor.deadAt, opts.cursor.id);
    keyset = ` AND (d.dead_at, d.id) < ($${params.length - 1}::timestamptz, $${params.length}::bigint)`;
  }
  params.push(opts.limit + 1);
  const r = await db.query<DeadLetterListRow>(
    `SELECT d.id, d.execution_id AS "executionId", d.task, d.fingerprint,
            left(d.last_error, ${ERROR_PREVIEW_CHARS}) AS error, d.attempts, d.partition,
            d.stream_key AS "streamKey", d.groups, d.enqueued_at AS "enqueuedAt", d.dead_at AS "deadAt",
            to_char(d.dead_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS "deadAtKey",
            d.replayed_at AS "replayedAt", d.replay_execution_id AS "replayExecutionId"
       FROM dead_letters d
      WHERE ${where.sql}${keyset}
      ORDER BY d.dead_at DESC, d.id DESC
      LIMIT $${params.length}`,
    params,
  );
  const more = r.rows.length > opts.limit;
  return { rows: more ? r.rows.slice(0, opts.limit) : r.rows, more };
}

/**
 * How many dead letters match, counted up to `cap` (the page says "10,000+" beyond it):
 * an exact count(*) over a million rows on every page view is what we refuse to do.
 * The inner SELECT keeps the list's ORDER BY so the planner picks the list's plan (walk
 * the matching keyset index until `cap` rows): without it, a task + error-text count was
 * planned as a BitmapAnd that read all 200k trigram matches first (150 ms at 1M).
 */
export async function countDeadLettersCapped(db: Db, filter: DeadLetterFilter, cap: number): Promise<{ count: number; capped: boolean }> {
  const params: unknown[] = [];
  const where = deadLetterWhere(filter, 'd', params);
  params.push(cap + 1);
  const r = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM (SELECT 1 FROM dead_letters d WHERE ${where.sql} ORDER BY d.dead_at DESC, d.id DESC LIMIT $${params.length}) s`,
    params,
  );
  const n = r.rows[0]!.n;
  return n > cap ? { count: cap, capped: true } : { count: n, capped: false };
}
