// One page of the executions list: keyset on id (never OFFSET), newest or oldest first,
// over executions ∪ overflow (spilled rows keep the id they will run under).
//
// Bounded whatever the filter: a filter an index bounds by itself (id, idempotency key,
// state=running; filterIsIndexBounded in server/core/execution-filter.ts) reads through
// that index (the caller passes `window: null`). Any other filter reads at most `window`
// (EXECUTION_SCAN_WINDOW) ids per page: ids in [lo, hi) just below the cursor
// (newest first) or just above it (oldest first), by primary-key range, so a rare match
// (a group key, a payload value) costs the same on page 1 and page 500 and never turns
// into a scan of the whole table. When a window holds fewer matches than the page, the
// reply says how far it searched (`searched`) and the next cursor continues from there.
// No new index on executions: every index there is written by the claim and finish
// (docs/benchmarks.md, W1/W2), and these reads are an operator's, not the engine's.
import type { ExecutionOrder, ExecutionQuery } from '../core/execution-filter';
import type { Db } from './pool';
import { displayStateSql, executionWhere, tableMatches } from './execution-conditions';

export const ERROR_PREVIEW_CHARS = 200;

export interface ExecutionListRow {
  id: number;
  task: string;
  state: string;
  partition: number;
  attempts: number;
  groups: Record<string, string>;
  streamKey: string | null;
  idempotencyKey: string | null;
  enqueuedAt: Date;
  runAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  error: string | null;
  waitingOn: string | null;
}

export interface ExecutionListResult {
  rows: ExecutionListRow[];
  /** More rows may follow after `nextCursor` (exclusive); null = the end. */
  nextCursor: number | null;
  /** The id range this page searched when the filter is not index-bounded: [from, to). */
  searched: { from: number; to: number; reachedEnd: boolean } | null;
}

const EXEC_COLS = (a: string) => `${a}.id, ${a}.task, ${displayStateSql(a)} AS state, ${a}.partition, ${a}.attempts, ${a}.groups,
  ${a}.stream_key AS "streamKey", ${a}.idempotency_key AS "idempotencyKey", ${a}.enqueued_at AS "enqueuedAt", ${a}.run_at AS "runAt",
  ${a}.started_at AS "startedAt", ${a}.finished_at AS "finishedAt", left(${a}.last_error, ${ERROR_PREVIEW_CHARS}) AS error,
  CASE WHEN ${a}.state = 'queued' THEN ${a}.waiting_on END AS "waitingOn"`;
const OVERFLOW_COLS = (a: string) => `${a}.id, ${a}.task, 'spilled' AS state, ${a}.partition, 0 AS attempts, ${a}.groups,
  ${a}.stream_key AS "streamKey", ${a}.idempotency_key AS "idempotencyKey", ${a}.enqueued_at AS "enqueuedAt", ${a}.run_at AS "runAt",
  NULL::timestamptz AS "startedAt", NULL::timestamptz AS "finishedAt", NULL::text AS error, NULL::text AS "waitingOn"`;

/** The lowest and highest id in executions ∪ overflow (primary-key ends; null when both are empty). */
export async function executionIdBounds(db: Db): Promise<{ min: number; max: number } | null> {
  const r = await db.query<{ min: number | null; max: number | null }>(
    `SELECT least((SELECT min(id) FROM executions), (SELECT min(id) FROM overflow)) AS min,
            greatest((SELECT max(id) FROM executions), (SELECT max(id) FROM overflow)) AS max`,
  );
  const row = r.rows[0]!;
  return row.min === null || row.max === null ? null : { min: row.min, max: row.max };
}

/** The id window a page of a not-index-bounded filter reads: [from, to). */
export function scanWindow(
  bounds: { min: number; max: number },
  order: ExecutionOrder,
  cursor: number | null,
  window: number,
): { from: number; to: number; reachedEnd: boolean } {
  if (order === 'newest') {
    const to = Math.min(cursor ?? bounds.max + 1, bounds.max + 1);
    const from = Math.max(to - window, bounds.min);
    return { from, to, reachedEnd: from <= bounds.min };
  }
  const from = Math.max(cursor === null ? bounds.min : cursor + 1, bounds.min);
  const to = Math.min(from + window, bounds.max + 1);
  return { from, to, reachedEnd: to > bounds.max };
}

export async function listExecutions(
  db: Db,
  filter: ExecutionQuery,
  opts: {
    limit: number;
    order: ExecutionOrder;
    cursor?: number | null;
    /** ids per page for a filter no index bounds; null when one does */
    window: number | null;
    bounds?: { min: number; max: number } | null;
  },
): Promise<ExecutionListResult> {
  const cursor = opts.cursor ?? null;
  const bounds = opts.bounds !== undefined ? opts.bounds : await executionIdBounds(db);
  if (!bounds) return { rows: [], nextCursor: null, searched: null };
  const win = opts.window === null ? null : scanWindow(bounds, opts.order, cursor, opts.window);
  if (win && win.from >= win.to) return { rows: [], nextCursor: null, searched: win };
  const dir = opts.order === 'newest' ? 'DESC' : 'ASC';
  const params: unknown[] = [];
  const parts: string[] = [];
  for (const [table, a, cols] of [
    ['executions', 'e', EXEC_COLS],
    ['overflow', 'o', OVERFLOW_COLS],
  ] as const) {
    if (!tableMatches(filter, table)) continue;
    const conds = [executionWhere(filter, table, a, params)];
    if (win) {
      params.push(win.from, win.to);
      conds.push(`${a}.id >= $${params.length - 1}::bigint AND ${a}.id < $${params.length}::bigint`);
    } else if (cursor !== null) {
      params.push(cursor);
      conds.push(`${a}.id ${opts.order === 'newest' ? '<' : '>'} $${params.length}::bigint`);
    }
    params.push(opts.limit + 1);
    parts.push(`(SELECT ${cols(a)} FROM ${table} ${a} WHERE ${conds.join(' AND ')} ORDER BY ${a}.id ${dir} LIMIT $${params.length})`);
  }
  if (parts.length === 0) return { rows: [], nextCursor: null, searched: win };
  params.push(opts.limit + 1);
  const r = await db.query<ExecutionListRow>(`SELECT * FROM (${parts.join(' UNION ALL ')}) x ORDER BY x.id ${dir} LIMIT $${params.length}`, params);
  const more = r.rows.length > opts.limit;
  const rows = more ? r.rows.slice(0, opts.limit) : r.rows;
  let nextCursor: number | null = null;
  if (more) nextCursor = rows[rows.length - 1]!.id;
  else if (win && !win.reachedEnd) nextCursor = opts.order === 'newest' ? win.from : win.to - 1;
  return { rows, nextCursor, searched: win };
}

/**
 * How many rows match, counted up to `cap` (the page says "10,000+" beyond it), inside the
 * same bounds as the list's first page: through the filter's index, or within the id
 * window `win`. Never a count(*) over executions.
 */
export async function countExecutionsCapped(
  db: Db,
  filter: ExecutionQuery,
  win: { from: number; to: number } | null,
  cap: number,
): Promise<{ count: number; capped: boolean }> {
  const params: unknown[] = [];
  const parts: string[] = [];
  for (const [table, a] of [
    ['executions', 'e'],
    ['overflow', 'o'],
  ] as const) {
    if (!tableMatches(filter, table)) continue;
    const conds = [executionWhere(filter, table, a, params)];
    if (win) {
      params.push(win.from, win.to);
      conds.push(`${a}.id >= $${params.length - 1}::bigint AND ${a}.id < $${params.length}::bigint`);
    }
    params.push(cap + 1);
    parts.push(`(SELECT 1 FROM ${table} ${a} WHERE ${conds.join(' AND ')} LIMIT $${params.length})`);
  }
  if (parts.length === 0) return { count: 0, capped: false };
  const r = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM (${parts.join(' UNION ALL ')}) s`, params);
  const n = r.rows[0]!.n;
  return n > cap ? { count: cap, capped: true } : { count: n, capped: false };
}
