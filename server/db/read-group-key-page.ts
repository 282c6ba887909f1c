// One page of a task group's keys for the Keys view, most queued first, with the group's
// totals and (optionally) one named key's row. group_slots holds one row per key in use
// with its live counts (queued = queued + blocked executions carrying the key); read through
// group_slot_counts, which adds the claims' and finishes' moves not yet folded (slot_deltas).
//
// Shape: group_slots has no index on its counters, on purpose — an index naming in_flight
// or queued would make every claim's and finish's counter update non-HOT (migration
// 20261123000700000). So the page is the primary-key range of (task, group) — one row
// per key with work, 10,000 rows for 10,000 keys — filtered past the keyset cursor
// (queued DESC, group_key) and cut by a top-N sort. The totals read the same range.
// Nothing here touches executions.
import type { Db } from './pool';

export interface GroupKeyPageRow {
  group_key: string;
  in_flight: number;
  queued: number;
}

export interface GroupKeyPage {
  keys: number;
  inFlight: number;
  queued: number;
  rows: GroupKeyPageRow[];
  /** The row of `focus`, when given and the key has a slot row (idle or not). */
  focus: GroupKeyPageRow | null;
}

export interface GroupKeyCursor {
  queued: number;
  key: string;
}

export async function readGroupKeyPage(
  db: Db,
  task: string,
  group: string,
  opts: { after: GroupKeyCursor | null; limit: number; focus: string | null },
): Promise<GroupKeyPage> {
  const r = await db.query<{ keys: number; in_flight: number; queued: number; rows: GroupKeyPageRow[] | null; focus: GroupKeyPageRow | null }>(
    `WITH g AS (
       SELECT group_key, greatest(in_flight, 0) AS in_flight, greatest(queued, 0) AS queued FROM group_slot_counts
       WHERE task = $1 AND group_name = $2 AND (in_flight > 0 OR queued > 0)
     ),
     page AS (
       SELECT group_key, in_flight, queued FROM g
       WHERE $3::int IS NULL OR queued < $3 OR (queued = $3 AND group_key > $4)
       ORDER BY queued DESC, group_key
       LIMIT $5
     )
     SELECT (SELECT count(*) FROM g)::int AS keys,
            (SELECT coalesce(sum(in_flight), 0) FROM g)::bigint AS in_flight,
            (SELECT coalesce(sum(queued), 0) FROM g)::bigint AS queued,
            (SELECT json_agg(json_build_object('group_key', group_key, 'in_flight', in_flight, 'queued', queued)
                             ORDER BY queued DESC, group_key) FROM page) AS rows,
            (SELECT json_build_object('group_key', s.group_key, 'in_flight', greatest(s.in_flight, 0), 'queued', greatest(s.queued, 0))
             FROM group_slot_counts s WHERE $6::text IS NOT NULL AND s.task = $1 AND s.group_name = $2 AND s.group_key = $6) AS focus`,
    [task, group, opts.after?.queued ?? null, opts.after?.key ?? null, opts.limit, opts.focus],
  );
  const row = r.rows[0]!;
  return { keys: row.keys, inFlight: Number(row.in_flight), queued: Number(row.queued), rows: row.rows ?? [], focus: row.focus };
}
