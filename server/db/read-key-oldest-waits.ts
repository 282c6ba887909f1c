// How long the oldest due, queued execution of each of a few group keys ('group=key')
// has waited, for the Keys view's page (≤ 100 keys). executions has no index by group
// key, so this takes the two places a key's oldest work can be found, each bounded:
//
//  * rows the claim set aside while the key was at its limit (waiting_on = the key) or
//    parked on its rate ('rate:' + the key, issue #19): one probe of
//    executions_waiting_idx (task, waiting_on, claim_at, id) each per key — the
//    key's next row in claim order; exact when its rows share a priority (the default),
//    else the wait of the row the claim takes next (priorities: server/core/priority.ts);
//  * rows still in the claim index: the oldest `headRows` due rows of each partition
//    (executions_claim_idx, LATERAL per partition like the claim), their keys matched
//    against the page's. A key found there has its oldest claimable row in that sample;
//    one not found has no claimable row older than the sampled heads.
//
// The wait runs from run_at (enqueue time, or when a retry or delay became due). A key
// whose queued work is all blocked behind streams or scheduled for later gets no row.
import type { Db } from './pool';

/**
 * The oldest `$4` due, claimable rows of each of the task's `$3` partitions (task `$1`), in
 * claim order through executions_claim_idx, LATERAL per partition as the claim reads them:
 * rows (run_at, group_keys). Shared by readKeyOldestWaits and readWorstKeyWaits, which bind
 * those three parameters at those positions.
 */
export const CLAIM_HEADS_SQL = `SELECT h.run_at, h.group_keys FROM generate_series(0, $3::int - 1) AS p(part) CROSS JOIN LATERAL (
         SELECT e.run_at, e.group_keys FROM executions e
         WHERE e.task = $1 AND e.partition = p.part AND e.state = 'queued' AND e.waiting_on IS NULL AND e.run_at <= now()
           AND e.claim_at <= (now() AT TIME ZONE 'UTC')
         ORDER BY e.claim_at, e.id LIMIT $4
       ) h`;

export interface KeyOldestWaitRow {
  group_key: string;
  oldest_run_at: Date;
}

export async function readKeyOldestWaits(
  db: Db,
  task: string,
  partitions: number,
  keys: readonly string[],
  headRows: number,
): Promise<KeyOldestWaitRow[]> {
  if (keys.length === 0) return [];
  const r = await db.query<KeyOldestWaitRow>(
    `WITH k AS (SELECT DISTINCT unnest($2::text[]) AS gk),
     -- set aside on the key, or parked on its rate ('rate:' + key, rate limits #19): one
     -- probe each
     waiting AS (
       SELECT k.gk, min(w.run_at) AS run_at FROM k CROSS JOIN LATERAL (VALUES (k.gk), ('rate:' || k.gk)) AS v(w_on)
       CROSS JOIN LATERAL (
         SELECT e.run_at FROM executions e
         WHERE e.task = $1 AND e.waiting_on = v.w_on AND e.state = 'queued'
         ORDER BY e.claim_at, e.id LIMIT 1
       ) w
       GROUP BY k.gk
     ),
     heads AS (${CLAIM_HEADS_SQL}),
     head_keys AS (
       SELECT g.gk, min(h.run_at) AS run_at FROM heads h CROSS JOIN LATERAL unnest(h.group_keys) AS g(gk)
       WHERE g.gk = ANY ($2::text[]) GROUP BY g.gk
     )
     SELECT k.gk AS group_key, least(w.run_at, hk.run_at) AS oldest_run_at
     FROM k LEFT JOIN waiting w ON w.gk = k.gk LEFT JOIN head_keys hk ON hk.gk = k.gk
     WHERE w.run_at IS NOT NULL OR hk.run_at IS NOT NULL`,
    [task, keys, partitions, headRows],
  );
  return r.rows;
}
