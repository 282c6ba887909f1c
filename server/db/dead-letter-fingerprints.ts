// Dead letters grouped by error fingerprint: count, first and last seen, the tasks it
// hit and the newest error text, biggest groups first. Shape:
//   1. one aggregate over the filtered rows (GROUP BY fingerprint), top `limit` by count;
//   2. per kept fingerprint, the newest matching row's error through the
//      (fingerprint, dead_at DESC, id DESC) index (LATERAL … LIMIT 1), so the error text
//      of a million rows is never carried through the aggregate.
// Unlike the list this reads every matching row; bench/dlq.ts reports its cost at 1M.
import type { DlqFilter } from '../core/dlq-filter';
import type { Db } from './pool';
import { deadLetterWhere } from './dead-letter-filter';
import { ERROR_PREVIEW_CHARS } from './list-dead-letters';

export interface FingerprintGroupRow {
  fingerprint: string;
  count: number;
  firstSeen: Date;
  lastSeen: Date;
  tasks: string[];
  pending: number;
  sampleError: string;
}

export async function deadLetterFingerprints(db: Db, filter: DlqFilter, limit: number): Promise<FingerprintGroupRow[]> {
  const params: unknown[] = [];
  const where = deadLetterWhere(filter, 'd', params);
  const inner = deadLetterWhere(filter, 'x', params);
  params.push(limit);
  const r = await db.query<FingerprintGroupRow>(
    `WITH g AS (
       SELECT d.fingerprint, count(*)::int AS count, min(d.dead_at) AS first_seen, max(d.dead_at) AS last_seen,
              array_agg(DISTINCT d.task ORDER BY d.task) AS tasks,
              count(*) FILTER (WHERE d.replayed_at IS NULL)::int AS pending
         FROM dead_letters d
        WHERE ${where.sql}
        GROUP BY d.fingerprint
        ORDER BY count(*) DESC, max(d.dead_at) DESC
        LIMIT $${params.length}
     )
     SELECT g.fingerprint, g.count, g.first_seen AS "firstSeen", g.last_seen AS "lastSeen", g.tasks, g.pending,
            coalesce(s.error, '') AS "sampleError"
       FROM g
       LEFT JOIN LATERAL (
         SELECT left(x.last_error, ${ERROR_PREVIEW_CHARS}) AS error FROM dead_letters x
          WHERE x.fingerprint = g.fingerprint AND ${inner.sql}
          ORDER BY x.dead_at DESC, x.id DESC LIMIT 1
       ) s ON true
      ORDER BY g.count DESC, g.last_seen DESC`,
    params,
  );
  return r.rows;
}
