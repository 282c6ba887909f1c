// Sign-in, sessions and throttling through the real tRPC router on Postgres.
import { describe, it, expect, beforeAll } from 'vitest';
import { TRPCError } from '@trpc/server';
import { testDatabase, type TestDatabase } from './db';
import { callerAs, callerFromCookies, MemoryCookieJar } from '../support/trpc-caller';
import { createUser, updateUser } from '../../server/services/users';
import { SYSTEM_ACTOR } from '../../server/db/audit';
import { SESSION_COOKIE, sha256Hex } from '../../server/services/sessions';
import { SIGN_IN_RULES } from '../../server/services/auth';

const PASSWORD = 'correct-horse-battery';

async function expectTrpcError(p: Promise<unknown>, code: TRPCError['code'], message?: RegExp) {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(TRPCError);
  expect((e as TRPCError).code).toBe(code);
  if (message) expect((e as TRPCError).message).toMatch(message);
  return e as TRPCError;
}

describe('auth', () => {
  let db: TestDatabase;
  let n = 0;
  const newEmail = () => `op${++n}-${Date.now()}@example.com`;

  beforeAll(async () => {
    db = await testDatabase();
  });

  it('signs in with the right password, sets an HTTP session cookie whose hash is stored, and audits it', async () => {
    const email = newEmail();
    const { user } = await createUser(db.pool, SYSTEM_ACTOR, { email, role: 'operator', password: PASSWORD });
    const jar = new MemoryCookieJar();
    const me = await callerAs(db.pool, null, { cookies: jar }).auth.signIn({ email: email.toUpperCase(), password: PASSWORD });
    expect(me).toEqual({ id: user.id, email, role: 'operator' });

    const token = jar.get(SESSION_COOKIE)!;
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const rows = await db.pool.query(`SELECT token_hash, user_id FROM sessions WHERE user_id = $1`, [user.id]);
    expect(rows.rows).toEqual([{ token_hash: sha256Hex(token), user_id: user.id }]);
    expect(JSON.stringify(rows.rows)).not.toContain(token);

    expect(await (await callerFromCookies(db.pool, jar)).auth.me()).toEqual(me);
    const audit = await db.pool.query(`SELECT action, actor_label FROM audit_log WHERE target_id = $1 AND action = 'auth.sign_in'`, [user.id]);
    expect(audit.rows).toEqual([{ action: 'auth.sign_in', actor_label: email }]);
    const lastLogin = await db.pool.query(`SELECT last_login_at FROM users WHERE id = $1`, [user.id]);
    expect(lastLogin.rows[0].last_login_at).toBeInstanceOf(Date);
  });

  it('refuses a wrong password and an unknown email with the same message', async () => {
    const email = newEmail();
    await createUser(db.pool, SYSTEM_ACTOR, { email, role: 'viewer', password: PASSWORD });
    const anon = callerAs(db.pool, null, { ip: '10.0.0.2' });
    await expectTrpcError(anon.auth.signIn({ email, password: 'wrong-password-1' }), 'UNAUTHORIZED', /^Incorrect email or password\.$/);
    await expectTrpcError(anon.auth.signIn({ email: newEmail(), password: PASSWORD }), 'UNAUTHORIZED', /^Incorrect email or password\.$/);
  });

  it('locks the email at one address after 5 failures in the window, even with the right password, with retry-after', async () => {
    const email = newEmail();
    const ip = '10.1.0.1';
    await createUser(db.pool, SYSTEM_ACTOR, { email, role: 'viewer', password: PASSWORD });
    for (let i = 1; i < SIGN_IN_RULES.pair.maxAttempts; i++) {
      await expectTrpcError(callerAs(db.pool, null, { ip }).auth.signIn({ email, password: 'nope-nope-nope' }), 'UNAUTHORIZED');
    }
    const fifth = await expectTrpcError(
      callerAs(db.pool, null, { ip }).auth.signIn({ email, password: 'nope-nope-nope' }),
      'TOO_MANY_REQUESTS',
      /Too many failed sign-ins .* Try again in 15 minutes\./,
    );
    expect(fifth.cause).toMatchObject({ retryAfterMs: expect.any(Number) });
    await expectTrpcError(callerAs(db.pool, null, { ip }).auth.signIn({ email, password: PASSWORD }), 'TOO_MANY_REQUESTS');
    const pairKey = `pair:${JSON.stringify([email.toLowerCase(), ip])}`;
    const row = await db.pool.query(`SELECT failures, locked_until > now() + interval '14 minutes' AS locked FROM login_throttle WHERE key = $1`, [pairKey]);
    expect(row.rows).toEqual([{ failures: SIGN_IN_RULES.pair.maxAttempts, locked: true }]);

    // Another address is not locked out of the same account (the admin cannot be locked out from one address).
    await callerAs(db.pool, null, { ip: '10.1.0.2' }).auth.signIn({ email, password: PASSWORD });

    // When the lock has passed the right password works again and clears the pair's count.
    await db.pool.query(`UPDATE login_throttle SET locked_until = now() - interval '1 second', window_start = now() - interval '16 minutes' WHERE key = $1`, [
      pairKey,
    ]);
    await callerAs(db.pool, null, { ip }).auth.signIn({ email, password: PASSWORD });
    const cleared = await db.pool.query(`SELECT 1 FROM login_throttle WHERE key = $1`, [pairKey]);
    expect(cleared.rowCount).toBe(0);
    // Every failure was audited, with the address it came from; the lock too.
    const failed = await db.pool.query(`SELECT count(*)::int AS n FROM audit_log WHERE action = 'auth.sign_in_failed' AND meta->>'email' = $1 AND meta->>'ip' = $2`, [email, ip]);
    expect(failed.rows[0].n).toBe(SIGN_IN_RULES.pair.maxAttempts);
    const locked = await db.pool.query(`SELECT meta->'locked' AS locked FROM audit_log WHERE action = 'auth.sign_in_locked' AND target_id = $1`, [email.toLowerCase()]);
    expect(locked.rows).toEqual([{ locked: ['pair'] }]);
  });

  it('locks the email everywhere after the slower global limit, reached from many addresses', async () => {
    const email = newEmail();
    await createUser(db.pool, SYSTEM_ACTOR, { email, role: 'viewer', password: PASSWORD });
    await db.pool.query(`INSERT INTO login_throttle (key, failures, window_start) VALUES ($1, $2, now() - interval '5 minutes')`, [
      `email:${email.toLowerCase()}`,
      SIGN_IN_RULES.email.maxAttempts - 1,
    ]);
    await expectTrpcError(callerAs(db.pool, null, { ip: '10.7.0.1' }).auth.signIn({ email, password: 'nope-nope-nope' }), 'TOO_MANY_REQUESTS');
    await expectTrpcError(callerAs(db.pool, null, { ip: '10.7.0.2' }).auth.signIn({ email, password: PASSWORD }), 'TOO_MANY_REQUESTS');
  });

  it('locks a client address that fails across many emails', async () => {
    const ip = '10.2.0.1';
    for (let i = 0; i < SIGN_IN_RULES.address.maxAttempts - 1; i++) {
      await expectTrpcError(callerAs(db.pool, null, { ip }).auth.signIn({ email: newEmail(), password: 'x-x-x-x-x-x' }), 'UNAUTHORIZED');
    }
    await expectTrpcError(callerAs(db.pool, null, { ip }).auth.signIn({ email: newEmail(), password: 'x-x-x-x-x-x' }), 'TOO_MANY_REQUESTS');
  });

  it('counts failures from a new window afresh once the old window has passed', async () => {
    const email = newEmail();
    const key = `email:${email}`;
    await db.pool.query(`INSERT INTO login_throttle (key, failures, window_start) VALUES ($1, 40, now() - interval '61 minutes')`, [key]);
    await expectTrpcError(callerAs(db.pool, null, { ip: '10.3.0.1' }).auth.signIn({ email, password: 'whatever-123' }), 'UNAUTHORIZED');
    const row = await db.pool.query(`SELECT failures, locked_until FROM login_throttle WHERE key = $1`, [key]);
    expect(row.rows).toEqual([{ failures: 1, locked_until: null }]);
  });

  it('an expired session is no session', async () => {
    const email = newEmail();
    await createUser(db.pool, SYSTEM_ACTOR, { email, role: 'admin', password: PASSWORD });
    const jar = new MemoryCookieJar();
    await callerAs(db.pool, null, { cookies: jar, ip: '10.4.0.1' }).auth.signIn({ email, password: PASSWORD });
    expect(await (await callerFromCookies(db.pool, jar)).auth.me()).not.toBeNull();
    await db.pool.query(`UPDATE sessions SET expires_at = now() - interval '1 second' WHERE token_hash = $1`, [sha256Hex(jar.get(SESSION_COOKIE)!)]);
    const caller = await callerFromCookies(db.pool, jar);
    expect(await caller.auth.me()).toBeNull();
    await expectTrpcError(caller.users.list(), 'UNAUTHORIZED', /Sign in/);
  });

  it('a deactivated user cannot sign in and their open sessions stop working', async () => {
    const email = newEmail();
    const { user } = await createUser(db.pool, SYSTEM_ACTOR, { email, role: 'operator', password: PASSWORD });
    const jar = new MemoryCookieJar();
    await callerAs(db.pool, null, { cookies: jar, ip: '10.5.0.1' }).auth.signIn({ email, password: PASSWORD });
    await updateUser(db.pool, SYSTEM_ACTOR, { id: user.id, active: false });
    expect(await (await callerFromCookies(db.pool, jar)).auth.me()).toBeNull();
    expect((await db.pool.query(`SELECT 1 FROM sessions WHERE user_id = $1`, [user.id])).rowCount).toBe(0);
    await expectTrpcError(
      callerAs(db.pool, null, { ip: '10.5.0.2' }).auth.signIn({ email, password: PASSWORD }),
      'FORBIDDEN',
      /deactivated/,
    );
  });

  it('signing out deletes the session and clears the cookie', async () => {
    const email = newEmail();
    await createUser(db.pool, SYSTEM_ACTOR, { email, role: 'viewer', password: PASSWORD });
    const jar = new MemoryCookieJar();
    await callerAs(db.pool, null, { cookies: jar, ip: '10.6.0.1' }).auth.signIn({ email, password: PASSWORD });
    const hash = sha256Hex(jar.get(SESSION_COOKIE)!);
    await (await callerFromCookies(db.pool, jar)).auth.signOut();
    expect(jar.get(SESSION_COOKIE)).toBeUndefined();
    expect((await db.pool.query(`SELECT 1 FROM sessions WHERE token_hash = $1`, [hash])).rowCount).toBe(0);
  });
});
