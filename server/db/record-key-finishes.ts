// Key finishes: counts the executions that finished (succeeded or dead) since the cursor,
// per (task, group, key) and minute, into group_key_finishes, for the Keys view's
// "finished per minute" (migration 20261124000300000 says why it is not counted in the
// finish itself). One statement per step, inside the maintenance service's transaction:
//
//  * the window is [cursor, now() − lagMs): finished_at is the finishing transaction's
//    start time, so a finish still committing when we look has a finished_at in the past;
//    the lag (5 s, against finish transactions of milliseconds) lets it commit first;
//  * the scan goes through executions_finished_idx (finished_at) and reads at most
//    `limit` rows: the window is cut at the limit-th finished_at T and only rows before T
//    are counted, the cursor moving to T, so rows sharing T (a finish batch shares one
//    finished_at) are counted together next time; when the cut falls on the cursor itself
//    (more than `limit` rows at one instant) that one instant is counted whole and the
//    cursor moves one microsecond past it;
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
  // Instants stay text between the two statements: a JS Date keeps milliseconds, and the
  // cursor may sit one microsecond past a finish (below); rounding it would count that
  // finish again.
  const cur = await db.query<{ since: string; until: string; cut: string | null; empty: boolean; cut_after: boolean }>(
    `SELECT c.scanned_until::text AS since, w.until::text AS until, x.cut::text AS cut,
            w.until <= c.scanned_until AS empty, x.cut > c.scanned_until AS cut_after
     FROM group_key_finish_cursor c
     CROSS JOIN (SELECT now() - make_interval(secs => $1 / 1000.0) AS until) w
     CROSS JOIN LATERAL (
       SELECT (SELECT e.finished_at FROM executions e
               WHERE e.state IN ('succeeded', 'dead') AND e.finished_at >= c.scanned_until AND e.finished_at < w.until
               ORDER BY e.finished_at OFFSET $2 - 1 LIMIT 1) AS cut
     ) x
     WHERE c.id = 1 FOR UPDATE OF c`,
    [lagMs, limit],
  );
  const { since, until, cut, empty, cut_after } = cur.rows[0]!;
  if (empty) return { scanned: 0, buckets: 0, pruned: 0 };
  // [since, upto) is what this pass counts; null: the one instant `since` (see the header).
  const upto = cut === null ? until : cut_after ? cut : null;
  const r = await db.query<{ scanned: number; buckets: number }>(
    `WITH fin AS (
       SELECT e.task, e.group_keys, e.finished_at FROM executions e
       WHERE e.state IN ('succeeded', 'dead') AND e.finished_at >= $1::timestamptz
         AND (CASE WHEN $2::timestamptz IS NULL THEN e.finished_at = $1::timestamptz ELSE e.finished_at < $2::timestamptz END)
     ),
     agg AS (
       SELECT f.task, split_part(k.gk, '=', 1) AS group_name, substr(k.gk, strpos(k.gk, '=') + 1) AS group_key,
              date_trunc('minute', f.finished_at) AS minute, count(*)::int AS n
       FROM fin f CROSS JOIN LATERAL unnest(f.group_keys) AS k(gk)
       GROUP BY 1, 2, 3, 4
     ),
     ins AS (
       INSERT INTO group_key_finishes AS g (task, group_name, group_key, minute, finished)
       SELECT task, group_name, group_key, minute, n FROM agg ORDER BY 1, 2, 3, 4
       ON CONFLICT (task, group_name, group_key, minute) DO UPDATE SET finished = g.finished + excluded.finished
       RETURNING 1
     ),
     moved AS (
       UPDATE group_key_finish_cursor SET scanned_until = coalesce($2::timestamptz, $1::timestamptz + interval '1 microsecond') WHERE id = 1 RETURNING 1
     )
     SELECT (SELECT count(*) FROM fin)::int AS scanned, (SELECT count(*) FROM ins)::int AS buckets, (SELECT count(*) FROM moved)::int AS moved`,
    [since, upto],
  );
  const pruned = await db.query(`DELETE FROM group_key_finishes WHERE minute < date_trunc('minute', now()) - interval '15 minutes'`);
  return { scanned: r.rows[0]!.scanned, buckets: r.rows[0]!.buckets, pruned: pruned.rowCount ?? 0 };
}
