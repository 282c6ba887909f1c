// Signing in and out. A sign-in first reserves its attempt against the throttle (the
// email at this address, the address, the email anywhere: server/core/sign-in-throttle.ts)
// in one short transaction holding those rows locked, so parallel guesses count one by one
// and the attempt past a limit is refused before any password is verified. Then it verifies
// the argon2id hash (or a dummy one for unknown emails, so timing does not reveal which
// accounts exist). A failure keeps its reservation and is audited; a success gives it back
// and opens a session. Success, failure, a lock and sign-out are audited.
import { z } from 'zod';
import { CoreError } from '../core/errors';
import { inputText } from '../core/input-text';
import { withTransaction, type Db, type Pool, type PoolClient } from '../db/pool';
import { recordAudit, type Actor } from '../db/audit';
import {
  releaseAttempt,
  reserveAttempt,
  SIGN_IN_RULES,
  signInThrottleKeys,
  type ThrottleKey,
  type ThrottleState,
} from '../core/sign-in-throttle';
import { verifyAgainstDummy, verifyPassword } from './passwords';
import { createSession, deleteSession, resolveSession, type SessionUser } from './sessions';
import type { Role } from '../core/roles';

export { SIGN_IN_RULES };

export const signInInput = z.strictObject({
  email: inputText.trim().min(1, 'enter your email').max(320, 'is too long'),
  // Never stored or sent to Postgres (only its argon2 hash is compared), but a NUL or an
  // unpaired surrogate cannot be part of a password anyone could type: refused the same way.
  password: inputText.min(1, 'enter your password').max(1024, 'is too long'),
});
export type SignInInput = z.infer<typeof signInInput>;

export interface ClientInfo {
  ip: string;
  userAgent: string | null;
}

export function userActor(u: { id: string; email: string }): Actor {
  return { type: 'user', id: u.id, label: u.email };
}

/** Who a failed or refused sign-in is recorded as: nobody is signed in yet. */
function anonymousActor(client: ClientInfo): Actor {
  return { type: 'user', id: null, label: `anonymous (${client.ip})` };
}

/** Locks the throttle rows of `keys` (creating missing ones) in key order; their states. */
async function lockThrottleRows(c: PoolClient, keys: readonly ThrottleKey[]): Promise<{ now: Date; rows: Map<string, ThrottleState> }> {
  const r = await c.query<{ key: string; failures: number; window_start: Date; locked_until: Date | null; now: Date }>(
    `INSERT INTO login_throttle AS t (key)
     SELECT k FROM unnest($1::text[]) AS k ORDER BY k
     ON CONFLICT (key) DO UPDATE SET key = t.key
     RETURNING key, failures, window_start, locked_until, now() AS now`,
    [keys.map((k) => k.key)],
  );
  const rows = new Map<string, ThrottleState>();
  for (const row of r.rows) rows.set(row.key, { attempts: row.failures, windowStart: row.window_start, lockedUntil: row.locked_until });
  return { now: r.rows[0]!.now, rows };
}

async function writeThrottleRows(c: PoolClient, next: Map<string, ThrottleState | null>): Promise<void> {
  const keep = [...next].filter((e): e is [string, ThrottleState] => e[1] !== null);
  const drop = [...next].filter(([, s]) => s === null).map(([k]) => k);
  if (keep.length > 0) {
    await c.query(
      `UPDATE login_throttle AS t SET failures = v.failures, window_start = v.window_start, locked_until = v.locked_until
         FROM unnest($1::text[], $2::int[], $3::timestamptz[], $4::timestamptz[]) AS v(key, failures, window_start, locked_until)
        WHERE t.key = v.key`,
      [keep.map(([k]) => k), keep.map(([, s]) => s.attempts), keep.map(([, s]) => s.windowStart), keep.map(([, s]) => s.lockedUntil)],
    );
  }
  if (drop.length > 0) await c.query(`DELETE FROM login_throttle WHERE key = ANY($1)`, [drop]);
}

/** Reserves one attempt on every key, or refuses it (nothing changes) while one is locked. */
async function reserveSignInAttempt(pool: Db, keys: readonly ThrottleKey[], email: string, client: ClientInfo) {
  return withTransaction(pool, async (c) => {
    const { now, rows } = await lockThrottleRows(c, keys);
    const r = reserveAttempt(keys, rows, now);
    if (r.granted) await writeThrottleRows(c, r.next);
    if (r.newlyLocked.length > 0) {
      await recordAudit(c, anonymousActor(client), {
        action: 'auth.sign_in_locked',
        targetType: 'sign_in',
        targetId: email.toLowerCase(),
        meta: {
          ip: client.ip,
          locked: r.newlyLocked.map((k) => k.kind),
          minutes: Math.ceil(r.retryAfterMs / 60_000),
        },
      });
    }
    return r;
  });
}

function lockedError(ms: number): CoreError {
  const minutes = Math.max(1, Math.ceil(ms / 60_000));
  return CoreError.tooManyRequests(
    `Too many failed sign-ins for this email or from this address. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
    ms,
  );
}

export async function signIn(
  pool: Db,
  input: SignInInput,
  client: ClientInfo,
  opts: { sessionHours: number },
): Promise<{ user: SessionUser; token: string; expiresAt: Date }> {
  const email = input.email.trim();
  const keys = signInThrottleKeys(email, client.ip);
  const reservation = await reserveSignInAttempt(pool, keys, email, client);
  if (!reservation.granted) throw lockedError(reservation.retryAfterMs);

  const r = await pool.query<{ id: string; email: string; role: Role; active: boolean; password_hash: string }>(
    `SELECT id, email, role, active, password_hash FROM users WHERE lower(email) = lower($1)`,
    [email],
  );
  const row = r.rows[0];
  const ok = row ? await verifyPassword(row.password_hash, input.password) : await verifyAgainstDummy(input.password);
  if (!row || !ok) {
    // The reservation stays: it is this failure's count.
    await recordAudit(pool, anonymousActor(client), {
      action: 'auth.sign_in_failed',
      targetType: 'user',
      targetId: row?.id ?? null,
      meta: { email: email.slice(0, 320), ip: client.ip, userAgent: client.userAgent?.slice(0, 512) ?? null },
    });
    if (reservation.newlyLocked.length > 0) throw lockedError(reservation.retryAfterMs);
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
    const { rows } = await lockThrottleRows(c, keys);
    await writeThrottleRows(c, releaseAttempt(keys, rows));
    await recordAudit(c, userActor(user), {
      action: 'auth.sign_in',
      targetType: 'user',
      targetId: user.id,
      meta: { ip: client.ip, userAgent: client.userAgent },
    });
    return { user, ...session };
  });
}

/**
 * Throttle rows that count nothing any more: every rule's window has run out (the longest
 * is the email's hour) and no lock is in force. A row younger than that may still count.
 */
export async function deleteStaleThrottleRows(db: Pool | PoolClient): Promise<number> {
  const longest = Math.max(...Object.values(SIGN_IN_RULES).map((r) => r.windowMinutes));
  const r = await db.query(
    `DELETE FROM login_throttle
      WHERE window_start <= now() - make_interval(mins => $1) AND (locked_until IS NULL OR locked_until <= now())`,
    [longest],
  );
  return r.rowCount ?? 0;
}

/** Ends the session behind a cookie token; a missing or unknown token is a no-op. */
export async function signOut(pool: Db, token: string | null | undefined): Promise<void> {
  if (!token) return;
  await withTransaction(pool, async (c) => {
    const user = await resolveSession(c, token);
    await deleteSession(c, token);
    if (user) await recordAudit(c, userActor(user), { action: 'auth.sign_out', targetType: 'user', targetId: user.id });
  });
}
