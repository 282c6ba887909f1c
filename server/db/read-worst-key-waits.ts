// The group keys of a task whose oldest due, queued execution has waited longest, for
// keyWait's inherited lines (a task's or the fleet's key-wait lines judge every key
// without its own: server/core/alert-observation.ts KEY_WAIT_INHERITED_MAX). The keys are
// not known in advance, so this finds them in the same two places readKeyOldestWaits
// probes for known keys, each bounded:
//
//  * rows set aside on a key (waiting_on = 'group=key', or 'rate:group=key' for a key
//    parked on its rate): the distinct waiting_on values of the task, found by a skip
//    scan of executions_waiting_idx (task, waiting_on, claim_at, id) — one index probe per
//    distinct value, at most `maxWaitingKeys` of them — and each one's next row in claim
//    order (its run_at);
//  * rows still in the claim index: the oldest `headRows` due rows of each partition
//    (executions_claim_idx, LATERAL per partition like the claim), their keys unnested.
//
// Keys in `exclude` (those with their own lines, read by readKeyOldestWaits) are left out;
// the `limit` oldest remain, oldest first. A task with more distinct waiting keys than
// maxWaitingKeys is judged on the first maxWaitingKeys in key order (documented in
// docs/operators.md).
import type { Db } from './pool';
import { CLAIM_HEADS_SQL, type KeyOldestWaitRow } from './read-key-oldest-waits';

export async function readWorstKeyWaits(
  db: Db,
  task: string,
  partitions: number,
  opts: { exclude: readonly string[]; headRows: number; maxWaitingKeys: number; limit: number },
): Promise<KeyOldestWaitRow[]> {
  const r = await db.query<KeyOldestWaitRow>(
    `WITH RECURSIVE wk(w_on) AS (
       (SELECT e.waiting_on FROM executions e
        WHERE e.task = $1 AND e.state = 'queued' AND e.waiting_on IS NOT NULL
        ORDER BY e.waiting_on LIMIT 1)
       UNION ALL
       SELECT (SELECT e.waiting_on FROM executions e
               WHERE e.task = $1 AND e.state = 'queued' AND e.waiting_on IS NOT NULL AND e.waiting_on > wk.w_on
               ORDER BY e.waiting_on LIMIT 1)
       FROM wk WHERE wk.w_on IS NOT NULL
     ),
     waiting_keys AS (SELECT w_on FROM wk WHERE w_on IS NOT NULL LIMIT $5),
     waiting AS (
       SELECT CASE WHEN k.w_on LIKE 'rate:%' THEN substr(k.w_on, 6) ELSE k.w_on END AS gk, w.run_at
       FROM waiting_keys k CROSS JOIN LATERAL (
         SELECT e.run_at FROM executions e
         WHERE e.task = $1 AND e.waiting_on = k.w_on AND e.state = 'queued'
         ORDER BY e.claim_at, e.id LIMIT 1
       ) w
     ),
     heads AS (${CLAIM_HEADS_SQL}),
     head_keys AS (SELECT g.gk, h.run_at FROM heads h CROSS JOIN LATERAL unnest(h.group_keys) AS g(gk))
     SELECT gk AS group_key, min(run_at) AS oldest_run_at
     FROM (SELECT gk, run_at FROM waiting UNION ALL SELECT gk, run_at FROM head_keys) a
     WHERE NOT (gk = ANY ($2::text[]))
     GROUP BY gk
     ORDER BY min(run_at), gk
     LIMIT $6`,
    [task, opts.exclude, partitions, opts.headRows, opts.maxWaitingKeys, opts.limit],
  );
  return r.rows;
}
