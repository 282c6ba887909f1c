// The WHERE clause every executions read shares (the list, its capped count, and the
// cancel-by-filter frozen set that builds on it), from the one filter schema
// (server/core/execution-filter.ts), for the executions table and for overflow (spilled
// rows: no state, attempts or finish of their own).
// Index notes (prisma/migrations/…_engine.sql, …_waiting_rows.sql, …_hot_slots.sql):
//   id              → primary key
//   idempotencyKey  → executions_idempotency_key (task, idempotency_key); without a task,
//                     task = ANY (the tasks of task_runtime) keeps it an index scan
//   state=running   → executions_running_idx (task, id), at most the concurrencies' sum
//   anything else   → the caller bounds the scan with an id window (list-executions.ts)
// Values are always bound parameters.
import type { ExecutionQuery, ExecutionState } from '../core/execution-filter';

export type ExecutionTable = 'executions' | 'overflow';

/**
 * Where each state lives and what selects it. One entry per state of
 * EXECUTION_STATES: the Record type makes a new state a compile error until it has its
 * line here.
 */
export const STATE_CONDITIONS: Record<ExecutionState, { table: ExecutionTable; sql: (a: string) => string }> = {
  queued: { table: 'executions', sql: (a) => `${a}.state = 'queued' AND ${a}.run_at <= now()` },
  scheduled: { table: 'executions', sql: (a) => `${a}.state = 'queued' AND ${a}.run_at > now()` },
  blocked: { table: 'executions', sql: (a) => `${a}.state = 'blocked'` },
  running: { table: 'executions', sql: (a) => `${a}.state = 'running'` },
  succeeded: { table: 'executions', sql: (a) => `${a}.state = 'succeeded'` },
  dead: { table: 'executions', sql: (a) => `${a}.state = 'dead'` },
  canceled: { table: 'executions', sql: (a) => `${a}.state = 'canceled'` },
  spilled: { table: 'overflow', sql: () => 'TRUE' },
};

/** The display state of a stored row (alias `a`): `scheduled` for a queued row not yet due. */
export function displayStateSql(a: string): string {
  return `CASE WHEN ${a}.state = 'queued' AND ${a}.run_at > now() THEN 'scheduled' ELSE ${a}.state END`;
}

/** Whether `table` can hold rows of the filter at all (a state lives in one table). */
export function tableMatches(f: ExecutionQuery, table: ExecutionTable): boolean {
  if (f.state !== undefined) return STATE_CONDITIONS[f.state].table === table;
  // overflow rows have not finished
  if (table === 'overflow' && (f.finishedFrom !== undefined || f.finishedTo !== undefined)) return false;
  return true;
}

/**
 * Conditions for `f` on `table` under alias `a`, numbering parameters after `params`
 * (which it extends). `TRUE` when the filter is empty.
 */
export function executionWhere(f: ExecutionQuery, table: ExecutionTable, a: string, params: unknown[]): string {
  const conds: string[] = [];
  const p = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  if (f.id !== undefined) conds.push(`${a}.id = ${p(f.id)}::bigint`);
  if (f.task !== undefined) conds.push(`${a}.task = ${p(f.task)}`);
  else if (f.idempotencyKey !== undefined) conds.push(`${a}.task = ANY (ARRAY(SELECT t.task FROM task_runtime t))`);
  if (f.idempotencyKey !== undefined) conds.push(`${a}.idempotency_key = ${p(f.idempotencyKey)}`);
  if (f.state !== undefined) conds.push(STATE_CONDITIONS[f.state].sql(a));
  if (f.stream !== undefined) conds.push(`${a}.stream_key = ${p(f.stream)}`);
  if (f.groupKey !== undefined) conds.push(`${a}.group_keys @> ARRAY[${p(f.groupKey)}::text]`);
  if (f.enqueuedFrom !== undefined) conds.push(`${a}.enqueued_at >= ${p(f.enqueuedFrom)}`);
  if (f.enqueuedTo !== undefined) conds.push(`${a}.enqueued_at < ${p(f.enqueuedTo)}`);
  if (table === 'executions') {
    if (f.finishedFrom !== undefined) conds.push(`${a}.finished_at >= ${p(f.finishedFrom)}`);
    if (f.finishedTo !== undefined) conds.push(`${a}.finished_at < ${p(f.finishedTo)}`);
  } else if (f.finishedFrom !== undefined || f.finishedTo !== undefined) {
    conds.push('FALSE');
  }
  if (f.payloadMatch !== undefined) conds.push(`${a}.payload #>> ${p(f.payloadMatch.path)}::text[] = ${p(f.payloadMatch.value)}`);
  return conds.length ? conds.join(' AND ') : 'TRUE';
}
