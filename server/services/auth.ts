// Signing in and out. A sign-in checks the throttle for the email and for the client
// address, verifies the argon2id hash (or a dummy one for unknown emails, so timing does
// not reveal which accounts exist), records a failure against both keys, or opens a
// session and clears the email's failures. Success and sign-out are audited.
import { z } from 'zod';
import { CoreError } from '../core/errors';
import { withTransaction, type Db, type Pool } from '../db/pool';
import { recordAudit, type Actor } from '../db/audit';
import { verifyAgainstDummy, verifyPassword } from './passwords';
import { createSession, deleteSession, resolveSession, type SessionUser } from './sessions';
import type { Role } from '../core/roles';

/** 5 failures for one email or one address within 15 minutes lock it for 15 minutes. */
export const THROTTLE = { maxFailures: 5, windowMinutes: 15, lockMinutes: 15 } as const;

export const signInInput = z.object({
  email: z.string().trim().min(1, 'enter your email').max(320, 'is too long'),
  password: z.string().min(1, 'enter your password').max(1024, 'is too long'),
});
export type SignInInput = z.infer<typeof signInInput>;

export interface ClientInfo {
  ip: string;
  userAgent: string | null;
}

export function userActor(u: { id: string; email: string }): Actor {
  return { type: 'user', id: u.id, label: u.email };
}

function throttleKeys(email: string, ip: string): string[] {
  return [`email:${email.toLowerCase()}`, `ip:${ip}`];
}

async function lockedFor(db: Db, keys: string[]): Promise<number> {
  const r = await db.query<{ ms: number | null }>(
    `SELECT ceil(extract(epoch FROM max(locked_until) - now()) * 1000)::float8 AS ms
       FROM login_throttle WHERE key = ANY($1) AND locked_until > now()`,
    [keys],
  );
  return r.rows[0]?.ms ?? 0;
}

// One upsert per key: a failure outside the window starts a new window; the failure
// that reaches the limit sets locked_until. Atomic, so parallel attempts all count.
async function recordFailure(db: Db, keys: string[]): Promise<void> {
  await db.query(
    `INSERT INTO login_throttle AS t (key, failures, window_start)
     SELECT k, 1, now() FROM unnest($1::text[]) AS k
     ON CONFLICT (key) DO UPDATE SET
       failures = CASE WHEN t.window_start < now() - make_interval(mins => $2) THEN 1 ELSE t.failures + 1 END,
       window_start = CASE WHEN t.window_start < now() - make_interval(mins => $2) THEN now() ELSE t.window_start END,
       locked_until = CASE
         WHEN t.window_start >= now() - make_interval(mins => $2) AND t.failures + 1 >= $3
         THEN now() + make_interval(mins => $4)
         ELSE t.locked_until END`,
    [keys, THROTTLE.windowMinutes, THROTTLE.maxFailures, THROTTLE.lockMinutes],
  );
}

function lockedError(ms: number): CoreError {
  const minutes = Math.max(1, Math.ceil(ms / 60_000));
  return CoreError.tooManyRequests(
    `Too many failed sign-ins for this email or from this address. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
    ms,
  );
}

export async function signIn(
  pool: Pool,
  input: SignInInput,
  client: ClientInfo,
  opts: { sessionHours: number },
): Promise<{ user: SessionUser; token: string; expiresAt: Date }> {
  const email = input.email.trim();
  const keys = throttleKeys(email, client.ip);
  const locked = await lockedFor(pool, keys);
  if (locked > 0) throw lockedError(locked);

  const r = await pool.query<{ id: string; email: string; role: Role; active: boolean; password_hash: string }>(
    `SELECT id, email, role, active, password_hash FROM users WHERE lower(email) = lower($1)`,
    [email],
  );
  const row = r.rows[0];
  const ok = row ? await verifyPassword(row.password_hash, input.password) : await verifyAgainstDummy(input.password);
  if (!row || !ok) {
    await recordFailure(pool, keys);
    const nowLocked = await lockedFor(pool, keys);
    if (nowLocked > 0) throw lockedError(nowLocked);
    throw new CoreError('UNAUTHORIZED', 'Incorrect email or password.');
  }
  if (!row.active) {
    // Only said after a correct password, so it reveals nothing to a guesser.
    throw new CoreError('FORBIDDEN', 'This account has been deactivated. Ask an admin to reactivate it.');
  }
  const user: SessionUser = { id: row.id, email: row.email, role: row.role };
  return withTransaction(pool, async (c) => {
    const session = await createSession(c, user.id, { hours: opts.sessionHours, userAgent: client.userAgent, ip: client.ip });
    await c.query(`UPDATE users SET last_login_at = now() WHERE id = $1`, [user.id]);
    await c.query(`DELETE FROM login_throttle WHERE key = $1`, [keys[0]]);
    await recordAudit(c, userActor(user), {
      action: 'auth.sign_in',
      targetType: 'user',
      targetId: user.id,
      meta: { ip: client.ip, userAgent: client.userAgent },
    });
    return { user, ...session };
  });
}

/** Ends the session behind a cookie token; a missing or unknown token is a no-op. */
export async function signOut(pool: Pool, token: string | null | undefined): Promise<void> {
  if (!token) return;
  await withTransaction(pool, async (c) => {
    const user = await resolveSession(c, token);
    await deleteSession(c, token);
    if (user) await recordAudit(c, userActor(user), { action: 'auth.sign_out', targetType: 'user', targetId: user.id });
  });
}
