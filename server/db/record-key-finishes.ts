// Key finishes: counts the executions that finished (succeeded or dead) since the cursor,
// per (task, group, key) and minute, into group_key_finishes, for the Keys view's
// "finished per minute" (migration 20261124000300000 says why it is not counted in the
// finish itself). One statement per step, inside the maintenance service's transaction:
//
//  * the window is [cursor, now() − lagMs): finished_at is the finishing transaction's
//    start time, so a finish still committing when we look has a finished_at in the past;
//    the lag (5 s, against finish transactions of milliseconds) lets it commit first;
//  * the scan goes through executions_finished_idx (finished_at) and reads at most
//    `limit` rows; a capped scan counts only rows strictly before the last finished_at it
//    saw and moves the cursor there, so rows sharing that timestamp are counted next time
//    (a finish batch shares one finished_at and is far smaller than the cap);
//  * the cursor starts two minutes back on a fresh database (nothing older matters to a
//    per-minute rate), and buckets older than 15 minutes are deleted.
import type { Db } from './pool';

export interface KeyFinishesResult {
  scanned: number;
  buckets: number;
  pruned: number;
}

export async function recordKeyFinishes(db: Db, opts: { lagMs?: number; limit?: number } = {}): Promise<KeyFinishesResult> {
  const lagMs = opts.lagMs ?? 5000;
  const limit = opts.limit ?? 100_000;
  await db.query(
    `INSERT INTO group_key_finish_cursor (id, scanned_until) VALUES (1, now() - interval '2 minutes') ON CONFLICT (id) DO NOTHING`,
  );
  const r = await db.query<{ scanned: number; buckets: number }>(
    `WITH cur AS (
       SELECT c.scanned_until AS since, now() - make_interval(secs => $1 / 1000.0) AS until
       FROM group_key_finish_cursor c WHERE c.id = 1 FOR UPDATE
     ),
     fin AS (
       SELECT e.task, e.group_keys, e.finished_at
       FROM executions e, cur
       WHERE e.state IN ('succeeded', 'dead') AND e.finished_at >= cur.since AND e.finished_at < cur.until
       ORDER BY e.finished_at
       LIMIT $2
     ),
     upto AS (
       SELECT CASE WHEN (SELECT count(*) FROM fin) >= $2 AND (SELECT max(finished_at) FROM fin) > cur.since
                   THEN (SELECT max(finished_at) FROM fin) ELSE greatest(cur.until, cur.since) END AS t
       FROM cur
     ),
     agg AS (
       SELECT f.task, split_part(k.gk, '=', 1) AS group_name, substr(k.gk, strpos(k.gk, '=') + 1) AS group_key,
              date_trunc('minute', f.finished_at) AS minute, count(*)::int AS n
       FROM fin f CROSS JOIN LATERAL unnest(f.group_keys) AS k(gk)
       WHERE f.finished_at < (SELECT t FROM upto)
       GROUP BY 1, 2, 3, 4
     ),
     ins AS (
       INSERT INTO group_key_finishes AS g (task, group_name, group_key, minute, finished)
       SELECT task, group_name, group_key, minute, n FROM agg ORDER BY 1, 2, 3, 4
       ON CONFLICT (task, group_name, group_key, minute) DO UPDATE SET finished = g.finished + excluded.finished
       RETURNING 1
     ),
     moved AS (
       UPDATE group_key_finish_cursor c SET scanned_until = (SELECT t FROM upto) WHERE c.id = 1 RETURNING 1
     )
     SELECT (SELECT count(*) FROM fin)::int AS scanned, (SELECT count(*) FROM ins)::int AS buckets, (SELECT count(*) FROM moved)::int AS moved`,
    [lagMs, limit],
  );
  const pruned = await db.query(`DELETE FROM group_key_finishes WHERE minute < date_trunc('minute', now()) - interval '15 minutes'`);
  return { scanned: r.rows[0]!.scanned, buckets: r.rows[0]!.buckets, pruned: pruned.rowCount ?? 0 };
}
