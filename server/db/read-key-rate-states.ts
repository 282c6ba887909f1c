// Rate limits (issue #19): the GCRA state (rate_state.tat_ms) of the keys a Keys view page
// shows, by primary key (task, group, key): one index probe per key of the page. A key
// without a row started nothing within about a burst window (slot GC deletes such rows):
// its next slot is now.
import type { Db } from './pool';

export async function readKeyRateStates(db: Db, task: string, group: string, keys: readonly string[]): Promise<Map<string, number>> {
  if (keys.length === 0) return new Map();
  const r = await db.query<{ group_key: string; tat_ms: number }>(
    `SELECT group_key, tat_ms FROM rate_state WHERE task = $1 AND group_name = $2 AND group_key = ANY ($3::text[])`,
    [task, group, keys],
  );
  return new Map(r.rows.map((x) => [x.group_key, Number(x.tat_ms)]));
}
