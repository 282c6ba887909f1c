// Writes one audit record. Called with the same client/transaction as the change it
// records, so a change and its audit row commit or roll back together.
import type { Db } from './pool';

export type ActorType = 'user' | 'token' | 'cli' | 'system';

export interface Actor {
  type: ActorType;
  /** user id, token id, or null for cli/system */
  id: string | null;
  /** what the Audit page shows: an email, a token name, `cli (root@host)`, `system` */
  label: string;
}

export interface AuditEntry {
  action: string; // e.g. "user.create", "config.apply", "dlq.purge"
  targetType: string; // e.g. "user", "config", "task", "dead_letter"
  targetId?: string | null;
  before?: unknown;
  after?: unknown;
  meta?: unknown;
}

export const SYSTEM_ACTOR: Actor = { type: 'system', id: null, label: 'system' };

export async function recordAudit(db: Db, actor: Actor, e: AuditEntry): Promise<void> {
  await db.query(
    `INSERT INTO audit_log (actor_type, actor_id, actor_label, action, target_type, target_id, before, after, meta)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [
      actor.type,
      actor.id,
      actor.label,
      e.action,
      e.targetType,
      e.targetId ?? null,
      e.before === undefined ? null : JSON.stringify(e.before),
      e.after === undefined ? null : JSON.stringify(e.after),
      e.meta === undefined ? null : JSON.stringify(e.meta),
    ],
  );
}
