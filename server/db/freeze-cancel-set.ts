// Cancel by filter, step 1: freeze the exact set (as the DLQ purge's freeze-purge-set.ts).
// One INSERT … SELECT copies the ids of the task's executions (and spilled rows) that match
// the filter now into execution_cancel_preview_items under a new preview row; the cancel
// later acts on those ids only, so an execution enqueued after this statement is never
// canceled by it, whatever the filter says.
// The WHERE is the executions list's (executionWhere, server/db/execution-conditions.ts),
// one branch per state the filter names (cancelFilterQueries): a filter selects the same
// executions in the list and in the preview. The scan: the task's unfinished rows by state
// (executions_claim_idx / _waiting_idx for queued, _stream_idx for blocked, _running_idx
// for running; overflow_drain_idx), then the group, stream and enqueue-time conditions on
// those rows. Never a finished row (the cancel filter names no finished state).
import type { CancelQuery, ExecutionCancelFilter } from '../core/execution-cancel-filter';
import { STATE_CONDITIONS, displayStateSql, executionWhere } from './execution-conditions';
import type { Actor } from './audit';
import type { Db } from './pool';

export interface FrozenCancelSet {
  id: string;
  task: string;
  total: number;
  expiresAt: Date;
  /** per state at freeze time (queued, scheduled, blocked, spilled, running) */
  byState: { state: string; count: number }[];
  oldestEnqueuedAt: Date | null;
  newestEnqueuedAt: Date | null;
}

/** Must run inside a transaction (the preview row and its items commit together). */
/** `queries` = cancelFilterQueries(f): the list's filter per state (the caller computes it; server/core is pure). */
export async function freezeCancelSet(db: Db, actor: Actor, f: ExecutionCancelFilter, queries: readonly CancelQuery[], ttlMinutes: number): Promise<FrozenCancelSet> {
  const pr = await db.query<{ id: string; expires_at: Date }>(
    `INSERT INTO execution_cancel_previews (task, filter, total, created_by_type, created_by_id, created_by_label, expires_at)
     VALUES ($1, $2, 0, $3, $4, $5, now() + make_interval(mins => $6)) RETURNING id, expires_at`,
    [f.task, JSON.stringify(f), actor.type, actor.id, actor.label, ttlMinutes],
  );
  const preview = pr.rows[0]!;
  const params: unknown[] = [preview.id];
  // One branch per state, each the list's WHERE for (task, state, group, stream, enqueue
  // time): the states are disjoint, so UNION ALL counts each execution once.
  const branches = queries.map((q) => {
    const table = STATE_CONDITIONS[q.state].table;
    const a = table === 'executions' ? 'e' : 'o';
    const st = table === 'executions' ? displayStateSql(a) : `'spilled'`;
    return `SELECT ${a}.id, ${st} AS st, ${a}.enqueued_at FROM ${table} ${a} WHERE ${executionWhere(q, table, a, params)}`;
  });
  const s = await db.query<{ st: string; count: number; oldest: Date; newest: Date }>(
    `WITH m AS MATERIALIZED (${branches.join(' UNION ALL ')}),
     ins AS (INSERT INTO execution_cancel_preview_items (preview_id, execution_id) SELECT $1, m.id FROM m)
     SELECT m.st, count(*)::int AS count, min(m.enqueued_at) AS oldest, max(m.enqueued_at) AS newest
       FROM m GROUP BY m.st ORDER BY count(*) DESC, m.st`,
    params,
  );
  const total = s.rows.reduce((a, r) => a + r.count, 0);
  await db.query(`UPDATE execution_cancel_previews SET total = $2 WHERE id = $1`, [preview.id, total]);
  const oldest = s.rows.reduce<Date | null>((a, r) => (a === null || r.oldest < a ? r.oldest : a), null);
  const newest = s.rows.reduce<Date | null>((a, r) => (a === null || r.newest > a ? r.newest : a), null);
  return {
    id: preview.id,
    task: f.task,
    total,
    expiresAt: preview.expires_at,
    byState: s.rows.map((r) => ({ state: r.st, count: r.count })),
    oldestEnqueuedAt: oldest,
    newestEnqueuedAt: newest,
  };
}
