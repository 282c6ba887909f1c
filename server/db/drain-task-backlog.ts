// Drain a deleted task: its backlog (blocked and queued executions, spilled overflow
// rows) becomes dead letters, so deleting a busy task loses nothing — the work stays
// replayable from the DLQ once the task exists again. Runs after the config version
// that removed the task (task_runtime.active = false: no enqueue, no claim any more).
//
// Shape: lock order of the engine (docs/architecture.md) — the task_runtime row first
// (claimers and finishers of the task wait), then its partition_stats rows in order
// (an enqueue still in flight holds one until it commits, so we see its rows), then
// three statements: executions → dead (with dead_letters rows) in one CTE, overflow →
// dead_letters in one CTE, counters. The moved keys lose their queued counts through
// slot_deltas rows (folded later). Rare and operator-driven; it scans the task's backlog
// once through executions_claim_idx / executions_stream_idx.
import type { Db } from './pool';
import { removeQueuedGroupKeys } from './enqueue-executions';
import { finishBacklogCounters, type BacklogFinished } from './finish-backlog-counters';

export interface DrainedBacklog {
  executions: number;
  spilled: number;
  /** Executions still running (they finish normally; their retries would be stranded). */
  running: number;
}

export async function drainTaskBacklog(db: Db, task: string, error: string, fingerprint: string): Promise<DrainedBacklog> {
  // The counters after the lock, in a statement of their own (its snapshot holds what the
  // lock's previous holder committed)
  const rt = await db.query<{ active: boolean }>('SELECT active FROM task_runtime WHERE task = $1 FOR UPDATE', [task]);
  const counters = await db.query<{ in_flight: number }>('SELECT in_flight FROM task_counters WHERE task = $1', [task]);
  const row = rt.rows[0];
  if (!row) return { executions: 0, spilled: 0, running: 0 };
  if (row.active) throw new Error(`drainTaskBacklog: task "${task}" is still active; remove it from the config first`);
  await db.query('SELECT 1 FROM partition_stats WHERE task = $1 ORDER BY partition FOR NO KEY UPDATE', [task]);

  const moved = await db.query<{ partition: number; n: number; keys: string[] | null }>(
    `WITH moved AS (
       UPDATE executions SET state = 'dead', finished_at = now(), last_error = $2
       WHERE task = $1 AND state IN ('blocked', 'queued')
       RETURNING id, partition, payload, groups, group_keys, stream_key, idempotency_key, attempts, enqueued_at
     ),
     dl AS (
       INSERT INTO dead_letters (execution_id, task, payload, groups, stream_key, idempotency_key, partition, attempts,
                                 last_error, fingerprint, enqueued_at)
       SELECT id, $1, payload, groups, stream_key, idempotency_key, partition, attempts, $2, $3, enqueued_at FROM moved
       ON CONFLICT (execution_id) DO NOTHING
     )
     SELECT partition, count(*)::int AS n,
            (SELECT array_agg(k) FROM moved m2 CROSS JOIN LATERAL unnest(m2.group_keys) k WHERE m2.partition = moved.partition) AS keys
     FROM moved GROUP BY partition`,
    [task, error, fingerprint],
  );
  const spilled = await db.query<{ partition: number; n: number; keys: string[] | null }>(
    `WITH gone AS (
       DELETE FROM overflow WHERE task = $1
       RETURNING id, partition, payload, groups, group_keys, stream_key, idempotency_key, enqueued_at
     ),
     dl AS (
       INSERT INTO dead_letters (execution_id, task, payload, groups, stream_key, idempotency_key, partition, attempts,
                                 last_error, fingerprint, enqueued_at)
       SELECT id, $1, payload, groups, stream_key, idempotency_key, partition, 0, $2, $3, enqueued_at FROM gone
       ON CONFLICT (execution_id) DO NOTHING
     )
     SELECT partition, count(*)::int AS n,
            (SELECT array_agg(k) FROM gone g2 CROSS JOIN LATERAL unnest(g2.group_keys) k WHERE g2.partition = gone.partition) AS keys
     FROM gone GROUP BY partition`,
    [task, error, fingerprint],
  );

  const perPartition = new Map<number, BacklogFinished>();
  for (const r of moved.rows) perPartition.set(r.partition, { depth: r.n, spilled: 0 });
  for (const r of spilled.rows) {
    const p = perPartition.get(r.partition) ?? { depth: 0, spilled: 0 };
    p.spilled += r.n;
    perPartition.set(r.partition, p);
  }
  await finishBacklogCounters(db, task, 'dead', perPartition);

  // Queued counts per group key (moved executions only: spilled rows never counted there).
  const keyCounts = new Map<string, number>();
  for (const r of moved.rows) for (const k of r.keys ?? []) keyCounts.set(k, (keyCounts.get(k) ?? 0) + 1);
  await removeQueuedGroupKeys(db, task, keyCounts);
  return {
    executions: moved.rows.reduce((s, r) => s + r.n, 0),
    spilled: spilled.rows.reduce((s, r) => s + r.n, 0),
    running: counters.rows[0]?.in_flight ?? 0,
  };
}
