// The WHERE clause every dead-letter query shares (list, fingerprint groups, the frozen
// sets of replay and purge), built from the one filter schema (server/core/dead-letter-filter.ts)
// so the set an operator browses is the set a replay or a purge acts on.
// Each condition is chosen for an index (prisma/migrations/…_engine.sql, …_dlq.sql):
//   task                → dead_letters_task_idx (task, dead_at DESC, id DESC)
//   fingerprint (+task) → dead_letters_(task_)fingerprint_idx
//   stream              → dead_letters_stream_idx (stream_key, dead_at DESC, id DESC)
//   group               → groups @> {"name": "key"}  (GIN jsonb_path_ops)
//   q                   → last_error ILIKE '%…%'     (GIN trigram when pg_trgm is installed)
//   from / to           → range on dead_at of whichever index is walked
// Values are always bound parameters; the LIKE pattern escapes % _ and \.
// eslint-disable-next-line sluice/architecture -- the arrow Db → Core is for types; the 'group=key' syntax is parsed by core's one parser, not a copy here
import { parseGroupFilter, type DeadLetterFilter } from '../core/dead-letter-filter';

export interface SqlWhere {
  /** `TRUE` when the filter is empty, else conditions joined with AND. */
  sql: string;
  params: unknown[];
}

export function likeEscape(s: string): string {
  return s.replace(/[\\%_]/g, (c) => '\\' + c);
}

/**
 * Conditions for `f` on table alias `a`, numbering parameters after `params` (which it
 * extends), so callers can put their own parameters first.
 */
export function deadLetterWhere(f: DeadLetterFilter, a = 'd', params: unknown[] = []): SqlWhere {
  const conds: string[] = [];
  const p = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  if (f.task !== undefined) conds.push(`${a}.task = ${p(f.task)}`);
  if (f.fingerprint !== undefined) conds.push(`${a}.fingerprint = ${p(f.fingerprint)}`);
  if (f.stream !== undefined) conds.push(`${a}.stream_key = ${p(f.stream)}`);
  if (f.group !== undefined) {
    const g = parseGroupFilter(f.group);
    conds.push(`${a}.groups @> ${p(JSON.stringify({ [g.name]: g.key }))}::jsonb`);
  }
  if (f.from !== undefined) conds.push(`${a}.dead_at >= ${p(f.from)}`);
  if (f.to !== undefined) conds.push(`${a}.dead_at < ${p(f.to)}`);
  if (f.q !== undefined) conds.push(`${a}.last_error ILIKE ${p('%' + likeEscape(f.q) + '%')}`);
  if (f.status === 'pending') conds.push(`${a}.replayed_at IS NULL`);
  if (f.status === 'replayed') conds.push(`${a}.replayed_at IS NOT NULL`);
  return { sql: conds.length ? conds.join(' AND ') : 'TRUE', params };
}
