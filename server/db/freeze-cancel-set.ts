// Cancel by filter, step 1: freeze the exact set (as the DLQ purge's freeze-purge-set.ts).
// One INSERT … SELECT copies the ids of the task's executions (and spilled rows) that match
// the filter now into execution_cancel_preview_items under a new preview row; the cancel
// later acts on those ids only, so an execution enqueued after this statement is never
// canceled by it, whatever the filter says.
// The scan: the task's unfinished rows by state (executions_claim_idx / _waiting_idx for
// queued, _stream_idx for blocked, _running_idx for running; overflow_drain_idx), then the
// group, stream and enqueue-time conditions on those rows. Never a finished row.
import type { ExecutionCancelFilter } from '../core/execution-cancel-filter';
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

/** Binds v as the next parameter and returns its placeholder. */
function bind(params: unknown[], v: unknown): string {
  params.push(v);
  return `$${params.length}`;
}

function conditions(f: ExecutionCancelFilter, a: string, params: unknown[]): string[] {
  const p = (v: unknown) => bind(params, v);
  const c: string[] = [];
  // `group=key` is already the form group_keys holds ('tenant=acme').
  if (f.group !== undefined) c.push(`${a}.group_keys @> ARRAY[${p(f.group)}::text]`);
  if (f.stream !== undefined) c.push(`${a}.stream_key = ${p(f.stream)}`);
  if (f.from !== undefined) c.push(`${a}.enqueued_at >= ${p(f.from)}`);
  if (f.to !== undefined) c.push(`${a}.enqueued_at < ${p(f.to)}`);
  return c;
}

/** Must run inside a transaction (the preview row and its items commit together). */
export async function freezeCancelSet(db: Db, actor: Actor, f: ExecutionCancelFilter, ttlMinutes: number): Promise<FrozenCancelSet> {
  const pr = await db.query<{ id: string; expires_at: Date }>(
    `INSERT INTO execution_cancel_previews (task, filter, total, created_by_type, created_by_id, created_by_label, expires_at)
     VALUES ($1, $2, 0, $3, $4, $5, now() + make_interval(mins => $6)) RETURNING id, expires_at`,
    [f.task, JSON.stringify(f), actor.type, actor.id, actor.label, ttlMinutes],
  );
  const preview = pr.rows[0]!;
  const params: unknown[] = [preview.id, f.task];
  const states = new Set(f.states);
  const stateConds: string[] = [];
  if (states.has('queued')) stateConds.push(`(e.state = 'queued' AND e.run_at <= now())`);
  if (states.has('scheduled')) stateConds.push(`(e.state = 'queued' AND e.run_at > now())`);
  if (states.has('blocked')) stateConds.push(`e.state = 'blocked'`);
  if (states.has('running')) stateConds.push(`e.state = 'running'`);
  const branches: string[] = [];
  if (stateConds.length > 0) {
    const dbStates = [...new Set(f.states.filter((s) => s !== 'spilled').map((s) => (s === 'scheduled' ? 'queued' : s)))];
    const conds = [`e.task = $2`, `e.state = ANY (${bind(params, dbStates)}::text[])`, `(${stateConds.join(' OR ')})`, ...conditions(f, 'e', params)];
    branches.push(
      `SELECT e.id, CASE WHEN e.state = 'queued' AND e.run_at > now() THEN 'scheduled' ELSE e.state END AS st, e.enqueued_at
       FROM executions e WHERE ${conds.join(' AND ')}`,
    );
  }
  if (states.has('spilled')) {
    const conds = [`o.task = $2`, ...conditions(f, 'o', params)];
    branches.push(`SELECT o.id, 'spilled' AS st, o.enqueued_at FROM overflow o WHERE ${conds.join(' AND ')}`);
  }
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
