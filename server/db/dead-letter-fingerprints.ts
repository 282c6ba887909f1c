// Dead letters grouped by error fingerprint: count, not yet replayed, first and last seen,
// the tasks it hit and the newest error text, biggest groups first. Two shapes:
//   * no filter, or only task and/or fingerprint: read dlq_fingerprint_stats, the
//     per-(task, fingerprint) counters the dead_letters triggers keep exact
//     (migration …_dlq.sql) — a few thousand rows at most, whatever the table size;
//   * any other filter (time range, text, group, stream, status): aggregate the matching
//     rows, newest first, at most SAMPLE_LIMIT of them (walking the same keyset index as
//     the list), and say so — an unbounded GROUP BY over a million rows took ~2 s.
// Either way the newest error text per kept fingerprint comes from one index probe
// (fingerprint, dead_at DESC, id DESC … LIMIT 1), never through the aggregate.
import type { DeadLetterFilter } from '../core/dead-letter-filter';
import type { Db } from './pool';
import { deadLetterWhere } from './dead-letter-conditions';
import { ERROR_PREVIEW_CHARS } from './list-dead-letters';

export const SAMPLE_LIMIT = 50_000;

export interface FingerprintGroupRow {
  fingerprint: string;
  count: number;
  firstSeen: Date | null;
  lastSeen: Date | null;
  tasks: string[];
  pending: number;
}

export interface FingerprintGroups {
  groups: (FingerprintGroupRow & { sampleError: string })[];
  /** null: exact over every matching dead letter; else the counts cover only the newest this many. */
  sampledNewest: number | null;
}

export function statsServe(f: DeadLetterFilter): boolean {
  return f.status === 'all' && f.group === undefined && f.stream === undefined && f.from === undefined && f.to === undefined && f.q === undefined;
}

async function fromStats(db: Db, f: DeadLetterFilter, limit: number): Promise<FingerprintGroupRow[]> {
  const r = await db.query<FingerprintGroupRow>(
    `SELECT fingerprint, sum(count)::int AS count, sum(pending)::int AS pending, min(first_seen) AS "firstSeen",
            max(last_seen) AS "lastSeen", array_agg(task ORDER BY task) AS tasks
       FROM dlq_fingerprint_stats
      WHERE count > 0 AND ($1::text IS NULL OR task = $1) AND ($2::text IS NULL OR fingerprint = $2)
      GROUP BY fingerprint
      ORDER BY sum(count) DESC, max(last_seen) DESC, fingerprint
      LIMIT $3`,
    [f.task ?? null, f.fingerprint ?? null, limit],
  );
  return r.rows;
}

async function fromRows(db: Db, f: DeadLetterFilter, limit: number): Promise<{ rows: FingerprintGroupRow[]; scanned: number }> {
  const params: unknown[] = [];
  const where = deadLetterWhere(f, 'd', params);
  params.push(SAMPLE_LIMIT, limit);
  const r = await db.query<FingerprintGroupRow & { scanned: number }>(
    `WITH m AS (
       SELECT d.fingerprint, d.task, d.dead_at, d.replayed_at FROM dead_letters d
        WHERE ${where.sql} ORDER BY d.dead_at DESC, d.id DESC LIMIT $${params.length - 1}
     )
     SELECT m.fingerprint, count(*)::int AS count, count(*) FILTER (WHERE m.replayed_at IS NULL)::int AS pending,
            min(m.dead_at) AS "firstSeen", max(m.dead_at) AS "lastSeen", array_agg(DISTINCT m.task ORDER BY m.task) AS tasks,
            (SELECT count(*) FROM m)::int AS scanned
       FROM m GROUP BY m.fingerprint
      ORDER BY count(*) DESC, max(m.dead_at) DESC, m.fingerprint
      LIMIT $${params.length}`,
    params,
  );
  return { rows: r.rows.map(({ scanned: _s, ...g }) => g), scanned: r.rows[0]?.scanned ?? 0 };
}

/** The newest error text of each fingerprint (within the task when the filter names one). */
async function sampleErrors(db: Db, fingerprints: string[], task: string | undefined): Promise<Map<string, string>> {
  if (fingerprints.length === 0) return new Map();
  const r = await db.query<{ fingerprint: string; error: string }>(
    `SELECT f.fp AS fingerprint, s.error
       FROM unnest($1::text[]) AS f(fp)
       CROSS JOIN LATERAL (
         SELECT left(x.last_error, ${ERROR_PREVIEW_CHARS}) AS error FROM dead_letters x
          WHERE x.fingerprint = f.fp AND ($2::text IS NULL OR x.task = $2)
          ORDER BY x.dead_at DESC, x.id DESC LIMIT 1
       ) s`,
    [fingerprints, task ?? null],
  );
  return new Map(r.rows.map((x) => [x.fingerprint, x.error]));
}

export async function deadLetterFingerprints(db: Db, filter: DeadLetterFilter, limit: number): Promise<FingerprintGroups> {
  let groups: FingerprintGroupRow[];
  let sampledNewest: number | null = null;
  if (statsServe(filter)) {
    groups = await fromStats(db, filter, limit);
  } else {
    const r = await fromRows(db, filter, limit);
    groups = r.rows;
    if (r.scanned >= SAMPLE_LIMIT) sampledNewest = SAMPLE_LIMIT;
  }
  const samples = await sampleErrors(db, groups.map((g) => g.fingerprint), filter.task);
  return { groups: groups.map((g) => ({ ...g, sampleError: samples.get(g.fingerprint) ?? '' })), sampledNewest };
}
