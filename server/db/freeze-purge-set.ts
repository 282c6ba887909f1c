// Step 1 of a purge: freeze the exact set. One INSERT … SELECT copies the ids that match
// the filter (or the ids of a selection that still exist) into dlq_purge_preview_items
// under a new preview row; the purge later deletes by those ids only, so a dead letter
// that arrives after this statement can never be deleted by it, whatever the filter.
// The SELECT uses the same WHERE as the browser (server/db/dead-letter-conditions.ts).
// A million ids freeze in a few seconds (bench/dlq.ts exercises the 1M table).
import type { DeadLetterFilter } from '../core/dead-letter-filter';
import type { Actor } from './audit';
import type { Db } from './pool';
import { deadLetterWhere } from './dead-letter-conditions';

export interface FrozenPurgeSet {
  id: string;
  total: number;
  expiresAt: Date;
  /** per task, for the preview and the audit record */
  byTask: { task: string; count: number }[];
  oldestDeadAt: Date | null;
  newestDeadAt: Date | null;
}

export type PurgeScope = { kind: 'filter'; filter: DeadLetterFilter } | { kind: 'ids'; ids: number[] };

/**
 * What the frozen set is for: a purge freezes every match; a replay freezes only the
 * matches not replayed yet (the job would skip the others), so the count the operator
 * confirms is the count the job replays.
 */
export type FrozenSetPurpose = 'purge' | 'replay';

/** Must run inside a transaction (the preview row and its items commit together). */
export async function freezePurgeSet(
  db: Db,
  actor: Actor,
  scope: PurgeScope,
  ttlMinutes: number,
  purpose: FrozenSetPurpose = 'purge',
): Promise<FrozenPurgeSet> {
  const p = await db.query<{ id: string; expires_at: Date }>(
    `INSERT INTO dlq_purge_previews (scope, filter, total, created_by_type, created_by_id, created_by_label, expires_at, purpose)
     VALUES ($1, $2, 0, $3, $4, $5, now() + make_interval(mins => $6), $7) RETURNING id, expires_at`,
    [
      scope.kind,
      JSON.stringify(scope.kind === 'filter' ? scope.filter : { ids: scope.ids }),
      actor.type,
      actor.id,
      actor.label,
      ttlMinutes,
      purpose,
    ],
  );
  const preview = p.rows[0]!;
  const params: unknown[] = [preview.id];
  let where: string;
  if (scope.kind === 'filter') {
    where = deadLetterWhere(scope.filter, 'd', params).sql;
  } else {
    params.push(scope.ids);
    where = `d.id = ANY ($2::bigint[])`;
  }
  if (purpose === 'replay') where = `(${where}) AND d.replayed_at IS NULL`;
  const s = await db.query<{ task: string; count: number; oldest: Date; newest: Date }>(
    `WITH ins AS (
       INSERT INTO dlq_purge_preview_items (preview_id, dead_letter_id)
       SELECT $1, d.id FROM dead_letters d WHERE ${where}
       RETURNING dead_letter_id
     )
     SELECT d.task, count(*)::int AS count, min(d.dead_at) AS oldest, max(d.dead_at) AS newest
       FROM ins JOIN dead_letters d ON d.id = ins.dead_letter_id
      GROUP BY d.task ORDER BY count(*) DESC, d.task`,
    params,
  );
  const total = s.rows.reduce((a, r) => a + r.count, 0);
  await db.query(`UPDATE dlq_purge_previews SET total = $2 WHERE id = $1`, [preview.id, total]);
  const oldest = s.rows.reduce<Date | null>((a, r) => (a === null || r.oldest < a ? r.oldest : a), null);
  const newest = s.rows.reduce<Date | null>((a, r) => (a === null || r.newest > a ? r.newest : a), null);
  return {
    id: preview.id,
    total,
    expiresAt: preview.expires_at,
    byTask: s.rows.map((r) => ({ task: r.task, count: r.count })),
    oldestDeadAt: oldest,
    newestDeadAt: newest,
  };
}
