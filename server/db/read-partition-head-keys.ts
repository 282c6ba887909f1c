// Which group keys sit at the head of one partition's queue: the group keys of its
// oldest `limit` queued rows (claim order), counted. Two bounded reads merged oldest
// first: claimable rows through executions_claim_idx (task, partition, claim_at, id) — at
// most `limit` index entries — and rows set aside while their key is at its limit
// (waiting_on; executions_waiting_idx is keyed by key, not partition, so this part reads
// the task's waiting rows and keeps the partition's oldest `limit`). Waiting rows are the
// saturated keys' backlog, which is exactly what a hot-partition drill-down is after.
// Used only when an operator opens one partition in the drill-down or an alert's evidence.
import type { Db } from './pool';

export interface HeadKeyRow {
  group_key: string;
  executions: number;
}

export async function readPartitionHeadKeys(db: Db, task: string, partition: number, limit: number): Promise<{ sampled: number; keys: HeadKeyRow[] }> {
  const r = await db.query<{ sampled: number; keys: HeadKeyRow[] | null }>(
    `WITH head AS (
       SELECT h.group_keys FROM (
         (SELECT group_keys, claim_at, id FROM executions
          WHERE task = $1 AND partition = $2 AND state = 'queued' AND waiting_on IS NULL
          ORDER BY claim_at, id LIMIT $3)
         UNION ALL
         (SELECT group_keys, claim_at, id FROM executions
          WHERE task = $1 AND partition = $2 AND state = 'queued' AND waiting_on IS NOT NULL
          ORDER BY claim_at, id LIMIT $3)
       ) h
       ORDER BY h.claim_at, h.id LIMIT $3
     )
     SELECT (SELECT count(*)::int FROM head) AS sampled,
            (SELECT json_agg(json_build_object('group_key', gk, 'executions', n) ORDER BY n DESC, gk)
             FROM (SELECT k.gk, count(*)::int AS n FROM head CROSS JOIN LATERAL unnest(head.group_keys) AS k(gk)
                   GROUP BY k.gk ORDER BY n DESC, k.gk LIMIT 10) top) AS keys`,
    [task, partition, limit],
  );
  const row = r.rows[0]!;
  return { sampled: row.sampled, keys: row.keys ?? [] };
}
