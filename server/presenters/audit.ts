// The Audit page: entries newest first, filtered by actor, action, target and time
// range, with keyset pagination on (at, id) — the order of audit_log_at_idx — so page N
// costs the same as page 1. The cursor is the last entry's id; its exact `at` (with
// microseconds, which a JS Date would truncate) is looked up in SQL.
import { z } from 'zod';
import { inputText } from '../core/input-text';
import type { Db } from '../db/pool';
import type { ActorType } from '../db/audit';
import { diffValues, type DiffLine } from './audit-diff';

// Postgres timestamps cannot hold every JS date (year 0, ±275760); keep to sane bounds.
const auditDate = z
  .date({ error: 'must be a date' })
  .min(new Date('1970-01-01T00:00:00Z'), 'must be after 1970')
  .max(new Date('9999-12-31T00:00:00Z'), 'must be before the year 10000');

export const auditListInput = z
  .strictObject({
    /** part of the actor label (email, token name, `cli (…)`), case-insensitive */
    actor: inputText.trim().max(200, 'is too long').optional(),
    /** an exact action (`user.create`) or a prefix ending in `.` or `*` (`user.`) */
    action: inputText.trim().max(100, 'is too long').optional(),
    targetType: inputText.trim().max(100, 'is too long').optional(),
    targetId: inputText.trim().max(200, 'is too long').optional(),
    from: auditDate.optional(),
    to: auditDate.optional(),
    cursor: inputText.regex(/^\d{1,18}$/, 'is not a valid page cursor').optional(),
    limit: z.number().int('must be a whole number').min(1, 'must be at least 1').max(200, 'must be at most 200').default(50),
  })
  .refine((v) => !v.from || !v.to || v.from < v.to, { path: ['to'], message: 'must be after "from"' });

export type AuditListInput = z.input<typeof auditListInput>;

export interface AuditEntryView {
  id: string;
  at: Date;
  actor: { type: ActorType; id: string | null; label: string };
  action: string;
  target: { type: string; id: string | null };
  before: unknown;
  after: unknown;
  meta: unknown;
  changes: DiffLine[];
}

export interface AuditPage {
  entries: AuditEntryView[];
  /** pass as `cursor` for the next (older) page; null on the last page */
  nextCursor: string | null;
}

interface Row {
  id: string;
  at: Date;
  actor_type: ActorType;
  actor_id: string | null;
  actor_label: string;
  action: string;
  target_type: string;
  target_id: string | null;
  before: unknown;
  after: unknown;
  meta: unknown;
}

function likeEscape(s: string): string {
  return s.replace(/[\\%_]/g, (c) => '\\' + c);
}

export async function listAudit(db: Db, input: z.output<typeof auditListInput>): Promise<AuditPage> {
  const where: string[] = [];
  const params: unknown[] = [];
  const cond = (sql: (p: string) => string, value: unknown) => {
    params.push(value);
    where.push(sql(`$${params.length}`));
  };
  if (input.actor) cond((p) => `actor_label ILIKE ${p}`, '%' + likeEscape(input.actor) + '%');
  if (input.action) {
    const prefix = input.action.endsWith('*') ? input.action.slice(0, -1) : input.action.endsWith('.') ? input.action : null;
    if (prefix !== null) cond((p) => `action LIKE ${p}`, likeEscape(prefix) + '%');
    else cond((p) => `action = ${p}`, input.action);
  }
  if (input.targetType) cond((p) => `target_type = ${p}`, input.targetType);
  if (input.targetId) cond((p) => `target_id = ${p}`, input.targetId);
  if (input.from) cond((p) => `at >= ${p}`, input.from);
  if (input.to) cond((p) => `at < ${p}`, input.to);
  if (input.cursor) cond((p) => `(at, id) < (SELECT at, id FROM audit_log WHERE id = ${p}::bigint)`, input.cursor);
  params.push(input.limit + 1);
  const { rows } = await db.query<Row>(
    `SELECT id::text AS id, at, actor_type, actor_id, actor_label, action, target_type, target_id, before, after, meta
       FROM audit_log
      ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
      -- Qualified: a bare "id" here would sort by the text alias above, not the bigint.
      ORDER BY audit_log.at DESC, audit_log.id DESC
      LIMIT $${params.length}`,
    params,
  );
  const page = rows.slice(0, input.limit);
  return {
    entries: page.map((r) => ({
      id: r.id,
      at: r.at,
      actor: { type: r.actor_type, id: r.actor_id, label: r.actor_label },
      action: r.action,
      target: { type: r.target_type, id: r.target_id },
      before: r.before,
      after: r.after,
      meta: r.meta,
      changes: diffValues(r.before, r.after),
    })),
    nextCursor: rows.length > input.limit ? page[page.length - 1]!.id : null,
  };
}
