// Slot GC's second table (rate limits, issue #19): deletes rate_state rows whose TAT has
// passed. Such a row means what an absent one means (the scope is idle and full: the claim
// reads max(TAT, now)), so deleting it changes no decision, and the table holds only the
// scopes that started work within their last burst window, whatever the number of keys
// ever seen. Rows are picked FOR UPDATE SKIP LOCKED in key order, so GC never waits on a
// claim's rate upsert (nor deadlocks with one, whatever order the claim takes its rows in);
// a row a claim moved forward meanwhile is re-checked under the lock and kept. A key with
// rows still parked on it (waiting_on 'rate:<group>=<key>') keeps its row, whose
// parked_until is what gets them released.
import type { Db } from './pool';

export async function gcRateState(db: Db, limit = 10_000): Promise<number> {
  const r = await db.query(
    `DELETE FROM rate_state rs USING (
       SELECT task, group_name, group_key FROM rate_state
       WHERE tat_ms < extract(epoch FROM clock_timestamp()) * 1000
         -- a key with rows still parked on it keeps its row: the claim releases them by it
         AND (parked_until IS NULL OR NOT EXISTS (
           SELECT 1 FROM executions w WHERE w.task = rate_state.task AND w.state = 'queued'
             AND w.waiting_on = 'rate:' || rate_state.group_name || '=' || rate_state.group_key))
       ORDER BY task, group_name, group_key
       LIMIT $1
       FOR UPDATE SKIP LOCKED
     ) idle
     WHERE rs.task = idle.task AND rs.group_name = idle.group_name AND rs.group_key = idle.group_key
       AND rs.tat_ms < extract(epoch FROM clock_timestamp()) * 1000`,
    [limit],
  );
  return r.rowCount ?? 0;
}
