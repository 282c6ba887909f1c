// Browser sessions. The cookie carries a random 256-bit token; the `sessions` row keeps
// only its SHA-256, so a leaked table hands out no sessions. A session resolves to its
// user only while it is unexpired and the user is active, so deactivating a user or
// deleting the row ends it at once.
import { createHash, randomBytes } from 'node:crypto';
import type { Db } from '../db/pool';
import type { SessionUser } from '../core/roles';

export type { SessionUser };
export const SESSION_COOKIE = 'sluice_session';

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

export function newSessionToken(): string {
  return randomBytes(32).toString('base64url');
}

export async function createSession(
  db: Db,
  userId: string,
  opts: { hours: number; userAgent: string | null; ip: string | null },
): Promise<{ token: string; expiresAt: Date }> {
  const token = newSessionToken();
  const r = await db.query<{ expires_at: Date }>(
    `INSERT INTO sessions (token_hash, user_id, expires_at, user_agent, ip)
     VALUES ($1, $2, now() + make_interval(hours => $3), $4, $5)
     RETURNING expires_at`,
    [sha256Hex(token), userId, opts.hours, opts.userAgent?.slice(0, 512) ?? null, opts.ip],
  );
  return { token, expiresAt: r.rows[0]!.expires_at };
}

/**
 * The user behind a session token, or null (unknown, expired, or deactivated user).
 * Touches last_seen_at at most once a minute, in the same statement.
 */
export async function resolveSession(db: Db, token: string | undefined | null): Promise<SessionUser | null> {
  if (!token || token.length > 200) return null;
  const r = await db.query<SessionUser>(
    `WITH s AS (
       SELECT s.token_hash, u.id, u.email, u.role
         FROM sessions s JOIN users u ON u.id = s.user_id
        WHERE s.token_hash = $1 AND s.expires_at > now() AND u.active
     ), touch AS (
       UPDATE sessions SET last_seen_at = now()
        WHERE token_hash = (SELECT token_hash FROM s) AND last_seen_at < now() - interval '1 minute'
     )
     SELECT id, email, role FROM s`,
    [sha256Hex(token)],
  );
  return r.rows[0] ?? null;
}

export async function deleteSession(db: Db, token: string): Promise<void> {
  await db.query(`DELETE FROM sessions WHERE token_hash = $1`, [sha256Hex(token)]);
}

export async function deleteSessionsOfUser(db: Db, userId: string): Promise<number> {
  const r = await db.query(`DELETE FROM sessions WHERE user_id = $1`, [userId]);
  return r.rowCount ?? 0;
}

/** Expired rows are dead weight; maintenance may call this periodically. */
export async function deleteExpiredSessions(db: Db): Promise<number> {
  const r = await db.query(`DELETE FROM sessions WHERE expires_at <= now()`);
  return r.rowCount ?? 0;
}
