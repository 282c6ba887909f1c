// For a coordinator with tracing on (docs/tracing.md): after a claim, each claimed
// execution's traceparent and how long it waited to be claimed, in one query by primary
// key for the whole batch. The claim functions do not return these (a coordinator with
// tracing off, the default, would parse two more columns per claimed row for nothing, and
// sluice_claim/sluice_cycle would need a new return type), so tracing pays one indexed
// round trip per claimed batch instead, and no tracing pays nothing.
// wait_ms: from when the execution became claimable (run_at: its delay or retry time;
// never before its enqueue) to the claim that started this attempt (started_at), both on
// the database's clock.
import type { Db } from './pool';

export interface TraceContextRow {
  id: number;
  traceparent: string | null;
  waitMs: number;
}

export async function readTraceContexts(db: Db, ids: readonly number[]): Promise<Map<number, TraceContextRow>> {
  if (ids.length === 0) return new Map();
  const r = await db.query<{ id: string | number; traceparent: string | null; wait_ms: number | null }>(
    `SELECT id, traceparent,
            greatest(0, extract(epoch FROM started_at - greatest(run_at, enqueued_at)) * 1000)::float8 AS wait_ms
       FROM executions WHERE id = ANY ($1::bigint[])`,
    [ids],
  );
  return new Map(r.rows.map((x) => [Number(x.id), { id: Number(x.id), traceparent: x.traceparent, waitMs: x.wait_ms ?? 0 }]));
}
