// "Why is this waiting?" for one execution: sluice_why_waiting
// (server/db/sql/functions/sluice_why_waiting.sql), which asks the claim's own questions (task paused, stream head,
// run_at, partition owner, group keys at their limit, task limit). Null: no such id.
import type { Db } from './pool';

export async function readWhyWaiting(db: Db, id: number, staleMs: number): Promise<Record<string, unknown> | null> {
  const r = await db.query<{ w: Record<string, unknown> | null }>('SELECT sluice_why_waiting($1::bigint, $2::int) AS w', [id, staleMs]);
  return r.rows[0]?.w ?? null;
}
