// Cancel executions of one task (operator action; services/execution-actions.ts and
// services/execution-cancel-matching.ts call it inside their audited transaction).
//
// Waiting work is canceled at once:
//   queued / scheduled / blocked → state canceled, finished_at now;
//   spilled (a row of `overflow`) → moved into executions as canceled (same id), so the
//   id a producer holds reads `canceled`;
// and the counters move in the same transaction: partition depth (spilled for overflow
// rows) falls, canceled_total counts them, their keys' queued counts fall (a slot_deltas row). A
// canceled stream row releases its stream: the stream's next blocked execution is promoted
// (sluice_promote_streams, the statement sluice_finish uses), and idle coordinators are
// woken (NOTIFY sluice_enqueue) to claim it.
//
// Running work only gets cancel_requested_at: its coordinator aborts the handler and
// records `canceled` through sluice_finish, which frees the slots and the stream then
// (migration 20261124000300000 says why not at once). NOTIFY sluice_cancel carries the
// execution id to the coordinators; each polls its own running ids as a fallback.
//
// Lock order (docs/architecture.md; as drain-task-backlog.ts): the task_runtime row (every
// claimer and finisher of the task waits, so no queued or running row of it changes under
// us), then the partition_stats rows of the touched partitions in order (an enqueue or a
// spill drain in flight holds one until it commits), then the execution / overflow rows,
// then the keys' −queued (slot_deltas rows, no group_slots row taken), then the stream
// advisory locks in order.
import type { Db } from './pool';
import { ENQUEUE_CHANNEL, removeQueuedGroupKeys } from './enqueue-executions';
import { lockTask } from './task-lock';
import { finishBacklogCounters } from './finish-backlog-counters';

/** Coordinators LISTEN here; the payload is the execution id whose cancel was requested. */
export const CANCEL_CHANNEL = 'sluice_cancel';

export type PriorState = 'queued' | 'scheduled' | 'blocked' | 'spilled' | 'running';

export interface CancelOutcome {
  id: number;
  prior: PriorState;
  /** canceled: done now; requested: running, its coordinator aborts and records it. */
  result: 'canceled' | 'requested';
}

export interface CanceledPerPartition {
  partition: number;
  canceled: number;
}

/** Must run inside a transaction. Ids of other tasks, finished or unknown ids are left
 *  alone (absent from the reply), and running ones too with includeRunning: false. A
 *  running row already asked to cancel is reported again as `requested` and notified
 *  again (a coordinator that missed the first notification acts on this one). */
export async function cancelExecutions(
  db: Db,
  task: string,
  ids: readonly number[],
  opts: { includeRunning?: boolean } = {},
): Promise<CancelOutcome[]> {
  const includeRunning = opts.includeRunning ?? true;
  const unique = [...new Set(ids)];
  if (unique.length === 0) return [];
  if (!(await lockTask(db, task))) return [];

  // Partitions of the rows (a row's partition never changes, whichever table holds it),
  // then their counter rows locked in order.
  const parts = await db.query<{ partition: number }>(
    `SELECT DISTINCT partition FROM (
       SELECT e.partition FROM executions e WHERE e.id = ANY ($2::bigint[]) AND e.task = $1 AND e.state IN ('queued', 'blocked')
       UNION ALL
       SELECT o.partition FROM overflow o WHERE o.id = ANY ($2::bigint[]) AND o.task = $1
     ) p`,
    [task, unique],
  );
  const partitions = parts.rows.map((r) => r.partition).sort((a, b) => a - b);
  if (partitions.length > 0) {
    await db.query(
      'SELECT 1 FROM partition_stats WHERE task = $1 AND partition = ANY ($2::int[]) ORDER BY partition FOR NO KEY UPDATE',
      [task, partitions],
    );
  }

  const waiting = await db.query<{ id: number; partition: number; prior: PriorState; group_keys: string[]; stream_key: string | null }>(
    `WITH old AS (
       SELECT e.id, CASE WHEN e.state = 'blocked' THEN 'blocked' WHEN e.run_at > now() THEN 'scheduled' ELSE 'queued' END AS prior
       FROM executions e WHERE e.id = ANY ($2::bigint[]) AND e.task = $1 AND e.state IN ('queued', 'blocked')
     )
     UPDATE executions e
     SET state = 'canceled', finished_at = now(), cancel_requested_at = now(), waiting_on = NULL,
         lease_token = NULL, lease_expires_at = NULL
     FROM old WHERE e.id = old.id AND e.state IN ('queued', 'blocked')
     RETURNING e.id, e.partition, old.prior, e.group_keys, e.stream_key`,
    [task, unique],
  );

  const spilled = await db.query<{ id: number; partition: number }>(
    `WITH gone AS (
       DELETE FROM overflow WHERE id = ANY ($2::bigint[]) AND task = $1
       RETURNING id, partition, payload, groups, group_keys, stream_key, idempotency_key, run_at, enqueued_at
     )
     INSERT INTO executions (id, task, partition, state, payload, groups, group_keys, stream_key, idempotency_key,
                             run_at, enqueued_at, finished_at, cancel_requested_at)
     SELECT id, $1, partition, 'canceled', payload, groups, group_keys, stream_key, idempotency_key,
            run_at, enqueued_at, now(), now()
     FROM gone
     RETURNING id, partition`,
    [task, unique],
  );

  const running = !includeRunning ? { rows: [] as { id: number }[] } : await db.query<{ id: number }>(
    `WITH req AS (
       UPDATE executions e SET cancel_requested_at = coalesce(e.cancel_requested_at, now())
       WHERE e.id = ANY ($2::bigint[]) AND e.task = $1 AND e.state = 'running'
       RETURNING e.id
     )
     SELECT req.id, pg_notify('${CANCEL_CHANNEL}', req.id::text) FROM req`,
    [task, unique],
  );

  // Counters: depth for executions rows, spilled for overflow rows; canceled_total both.
  const perPart = new Map<number, { depth: number; spilled: number }>();
  for (const r of waiting.rows) {
    const p = perPart.get(r.partition) ?? { depth: 0, spilled: 0 };
    p.depth++;
    perPart.set(r.partition, p);
  }
  for (const r of spilled.rows) {
    const p = perPart.get(r.partition) ?? { depth: 0, spilled: 0 };
    p.spilled++;
    perPart.set(r.partition, p);
  }
  await finishBacklogCounters(db, task, 'canceled', perPart);

  // group_slots.queued counts queued + blocked executions per key (spilled rows never).
  const keyCounts = new Map<string, number>();
  for (const r of waiting.rows) for (const k of r.group_keys) keyCounts.set(k, (keyCounts.get(k) ?? 0) + 1);
  await removeQueuedGroupKeys(db, task, keyCounts);

  // A canceled head releases its stream (a canceled blocked row changes nothing there:
  // the promotion only moves a stream whose lowest unfinished row is blocked).
  const streams = [...new Set(waiting.rows.map((r) => r.stream_key).filter((s): s is string => s !== null))].sort();
  if (streams.length > 0) {
    const promoted = await db.query<{ n: number }>('SELECT sluice_promote_streams($1, $2::text[]) AS n', [task, streams]);
    if ((promoted.rows[0]?.n ?? 0) > 0) await db.query(`SELECT pg_notify('${ENQUEUE_CHANNEL}', $1)`, [task]);
  }

  return [
    ...waiting.rows.map((r) => ({ id: r.id, prior: r.prior, result: 'canceled' as const })),
    ...spilled.rows.map((r) => ({ id: r.id, prior: 'spilled' as const, result: 'canceled' as const })),
    ...running.rows.map((r) => ({ id: r.id, prior: 'running' as const, result: 'requested' as const })),
  ].sort((a, b) => a.id - b.id);
}

/** The task of an execution (or spilled row); null when neither table has it. */
export async function executionTask(db: Db, id: number): Promise<{ task: string; state: string } | null> {
  const r = await db.query<{ task: string; state: string }>(
    `SELECT task, state FROM executions WHERE id = $1
     UNION ALL SELECT task, 'spilled' FROM overflow WHERE id = $1 LIMIT 1`,
    [id],
  );
  return r.rows[0] ?? null;
}
