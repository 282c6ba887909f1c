// Which group keys sit at the head of one partition's queue: the group keys of its
// oldest `limit` claimable rows (queued, in claim order), counted. A bounded range of
// executions_claim_idx (task, partition, run_at, id) WHERE state = 'queued' — at most
// `limit` index entries, never a scan of the partition — used only when an operator
// opens one partition in the drill-down or an alert's evidence.
import type { Db } from './pool';

export interface HeadKeyRow {
  group_key: string;
  executions: number;
}

export async function readPartitionHeadKeys(db: Db, task: string, partition: number, limit: number): Promise<{ sampled: number; keys: HeadKeyRow[] }> {
  const r = await db.query<{ sampled: number; keys: HeadKeyRow[] | null }>(
    `WITH head AS (
       SELECT group_keys FROM executions
       WHERE task = $1 AND partition = $2 AND state = 'queued'
       ORDER BY run_at, id LIMIT $3
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
