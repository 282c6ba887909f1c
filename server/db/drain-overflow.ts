// Spill drainer: moves parked executions from `overflow` back into `executions` when
// their partition's depth has fallen (spillDrainCount in core decides how many), oldest
// id first, in one transaction per task: partition_stats rows locked in order → overflow
// rows → the keys' +queued (a slot_deltas row) → stream locks → one insert (ids and enqueue times kept,
// so latency still counts from the original enqueue; the traceparent too). A stream whose earlier row cannot
// go yet (its partition is still full) holds its later rows back too, across partitions.
import type { Db } from './pool';
// eslint-disable-next-line sluice/architecture -- the arrow Db → Core is for types; how many rows may drain is core's rule, applied per partition row read here
import { spillDrainCount } from '../core/backpressure';
import { addQueuedGroupKeys, claimFloorOffsets, insertExecutions, jitOffForLargeBatch, lockStreams, lowerClaimFloorSql } from './enqueue-executions';

export interface DrainResult {
  task: string;
  drained: number;
}

export async function drainOverflow(db: Db, task: string, maxDepth: number, limit = 5000): Promise<DrainResult> {
  const parts = await db.query<{ partition: number; depth: number; spilled: number }>(
    `SELECT partition, depth, spilled FROM partition_stats WHERE task = $1 AND spilled > 0 ORDER BY partition FOR NO KEY UPDATE`,
    [task],
  );
  const room = new Map<number, number>();
  for (const p of parts.rows) room.set(p.partition, spillDrainCount(Math.max(0, p.depth), maxDepth, Math.max(0, p.spilled)));
  const total = [...room.values()].reduce((a, b) => a + b, 0);
  if (total === 0) return { task, drained: 0 };
  const rows = await db.query<{
    id: number; partition: number; payload: unknown; groups: Record<string, string>; stream_key: string | null;
    idempotency_key: string | null; run_at: Date; enqueued_at: Date; traceparent: string | null;
    priority: number; priority_lead_ms: string;
  }>(
    `SELECT id, partition, payload, groups, stream_key, idempotency_key, run_at, enqueued_at, traceparent, priority, priority_lead_ms FROM overflow
     WHERE task = $1 ORDER BY id LIMIT $2 FOR UPDATE`,
    [task, Math.min(limit, Math.max(total * 4, total + 100))],
  );
  const heldStreams = new Set<string>();
  const take: typeof rows.rows = [];
  for (const r of rows.rows) {
    const left = room.get(r.partition) ?? 0;
    const streamHeld = r.stream_key !== null && heldStreams.has(r.stream_key);
    if (left > 0 && !streamHeld && take.length < limit) {
      take.push(r);
      room.set(r.partition, left - 1);
    } else if (r.stream_key !== null) {
      heldStreams.add(r.stream_key);
    }
  }
  if (take.length === 0) return { task, drained: 0 };
  await jitOffForLargeBatch(db, take.length);
  await db.query('DELETE FROM overflow WHERE id = ANY ($1::bigint[])', [take.map((r) => r.id)]);
  await addQueuedGroupKeys(db, task, take.flatMap((r) => Object.entries(r.groups) as [string, string][]));
  await lockStreams(db, task, take.map((r) => r.stream_key).filter((s): s is string => s !== null));
  const newRows = take.map((r) => ({
    id: r.id,
    partition: r.partition,
    payload: r.payload,
    groups: r.groups,
    streamKey: r.stream_key,
    idempotencyKey: r.idempotency_key,
    delayMs: Math.max(0, r.run_at.getTime() - Date.now()),
    enqueuedAt: r.enqueued_at,
    traceparent: r.traceparent,
    priority: r.priority,
    priorityLeadMs: Number(r.priority_lead_ms),
  }));
  await insertExecutions(db, task, newRows);
  const per = new Map<number, number>();
  for (const r of take) per.set(r.partition, (per.get(r.partition) ?? 0) + 1);
  // the drained rows are claimable (or blocked behind their stream) with the claim_at they
  // were enqueued with: each partition's claim floor comes down to them, under the row lock
  // taken above (migration 20261203000100000_claim_floor)
  const floors = claimFloorOffsets(newRows);
  await db.query(
    `UPDATE partition_stats ps SET depth = ps.depth + d.n, spilled = greatest(ps.spilled - d.n, 0), updated_at = now(),
       ${lowerClaimFloorSql('d.floor_ms')}
     FROM unnest($2::int[], $3::int[], $4::float8[]) AS d(partition, n, floor_ms) WHERE ps.task = $1 AND ps.partition = d.partition`,
    [task, [...per.keys()], [...per.values()], [...per.keys()].map((p) => floors.get(p) ?? null)],
  );
  return { task, drained: take.length };
}

/** Tasks that have spilled executions waiting, with their maxDepth. */
export async function tasksWithSpill(db: Db): Promise<{ task: string; maxDepth: number }[]> {
  const r = await db.query<{ task: string; max_depth: number }>(
    `SELECT t.task, (t.definition -> 'backpressure' ->> 'maxDepth')::bigint AS max_depth FROM task_runtime t
     WHERE EXISTS (SELECT 1 FROM partition_stats ps WHERE ps.task = t.task AND ps.spilled > 0)`,
  );
  return r.rows.map((x) => ({ task: x.task, maxDepth: Number(x.max_depth) }));
}
