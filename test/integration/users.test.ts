// Users: first admin, create/update through the router, the last-admin rule, and the
// audit trail (same transaction as the change, no password hashes in it).
import { describe, it, expect, beforeAll } from 'vitest';
import { TRPCError } from '@trpc/server';
import { testDatabase, type TestDatabase } from './db';
import { createUser, ensureFirstAdmin, updateUser } from '../../server/services/users';
import { SYSTEM_ACTOR } from '../../server/db/audit';
import { verifyPassword } from '../../server/services/passwords';
import { callerAs } from '../support/trpc-caller';
import type { SessionUser } from '../../server/services/sessions';

describe('ensureFirstAdmin', () => {
  it('creates one admin with a generated password on an empty database, then nothing', async () => {
    const db = await testDatabase();
    const first = await ensureFirstAdmin(db.pool, { SLUICE_ADMIN_EMAIL: 'root@example.com', SLUICE_ADMIN_PASSWORD: undefined });
    expect(first).toMatchObject({ created: true, email: 'root@example.com', password: expect.stringMatching(/^[A-Za-z2-9]{20}$/) });
    const row = await db.pool.query(`SELECT role, active, password_hash FROM users`);
    expect(row.rows).toHaveLength(1);
    expect(row.rows[0]).toMatchObject({ role: 'admin', active: true });
    expect(row.rows[0].password_hash).toMatch(/^\$argon2id\$/);
    expect(await verifyPassword(row.rows[0].password_hash, first.password!)).toBe(true);

    const again = await Promise.all([1, 2, 3].map(() => ensureFirstAdmin(db.pool, { SLUICE_ADMIN_EMAIL: 'other@example.com', SLUICE_ADMIN_PASSWORD: undefined })));
    expect(again.every((a) => !a.created && a.email === 'root@example.com' && a.password === undefined)).toBe(true);
    const audit = await db.pool.query(`SELECT actor_type, action, after FROM audit_log`);
    expect(audit.rows).toHaveLength(1);
    expect(audit.rows[0]).toMatchObject({ actor_type: 'system', action: 'user.create' });
    expect(JSON.stringify(audit.rows)).not.toContain('argon2');
  });

  it('uses SLUICE_ADMIN_PASSWORD when given and does not echo it', async () => {
    const db = await testDatabase();
    const r = await ensureFirstAdmin(db.pool, { SLUICE_ADMIN_EMAIL: 'boss@example.com', SLUICE_ADMIN_PASSWORD: 'a-long-enough-password' });
    expect(r).toEqual({ created: true, email: 'boss@example.com' });
    const row = await db.pool.query(`SELECT password_hash FROM users`);
    expect(await verifyPassword(row.rows[0].password_hash, 'a-long-enough-password')).toBe(true);
  });
});

describe('users router', () => {
  let db: TestDatabase;
  let admin: SessionUser;

  beforeAll(async () => {
    db = await testDatabase();
    const { user } = await createUser(db.pool, SYSTEM_ACTOR, { email: 'admin@example.com', role: 'admin', password: 'admin-password-123' });
    admin = { id: user.id, email: user.email, role: 'admin' };
  });

  it('an admin creates a user (generated password returned once) and it is audited with the admin as actor', async () => {
    const caller = callerAs(db.pool, admin);
    const r = await caller.users.create({ email: 'New.Person@example.com', role: 'operator' });
    expect(r.generatedPassword).toMatch(/^[A-Za-z2-9]{20}$/);
    expect(r.user).toMatchObject({ email: 'New.Person@example.com', role: 'operator', active: true });
    const audit = await db.pool.query(`SELECT actor_type, actor_id, actor_label, action, target_type, target_id, before, after FROM audit_log WHERE target_id = $1`, [r.user.id]);
    expect(audit.rows).toEqual([
      {
        actor_type: 'user',
        actor_id: admin.id,
        actor_label: 'admin@example.com',
        action: 'user.create',
        target_type: 'user',
        target_id: r.user.id,
        before: null,
        after: { id: r.user.id, email: 'New.Person@example.com', role: 'operator', active: true },
      },
    ]);
    // Emails are unique case-insensitively.
    const dup = await caller.users.create({ email: 'new.person@EXAMPLE.com', role: 'viewer' }).catch((e: unknown) => e);
    expect(dup).toBeInstanceOf(TRPCError);
    expect(dup).toMatchObject({ code: 'CONFLICT', message: 'A user with email new.person@EXAMPLE.com already exists.' });
  });

  it('changes a role and records before/after', async () => {
    const caller = callerAs(db.pool, admin);
    const { user } = await caller.users.create({ email: 'promote@example.com', role: 'viewer', password: 'viewer-password-1' });
    const updated = await caller.users.update({ id: user.id, role: 'operator' });
    expect(updated.role).toBe('operator');
    const audit = await db.pool.query(`SELECT action, before->>'role' AS b, after->>'role' AS a FROM audit_log WHERE target_id = $1 AND action = 'user.change_role'`, [user.id]);
    expect(audit.rows).toEqual([{ action: 'user.change_role', b: 'viewer', a: 'operator' }]);
  });

  it('the last active admin cannot demote or deactivate themselves; with a second admin they can', async () => {
    const db2 = await testDatabase();
    const { user } = await createUser(db2.pool, SYSTEM_ACTOR, { email: 'only@example.com', role: 'admin', password: 'only-admin-pass-1' });
    const me: SessionUser = { id: user.id, email: user.email, role: 'admin' };
    const caller = callerAs(db2.pool, me);
    for (const change of [{ role: 'operator' as const }, { active: false }]) {
      await expect(caller.users.update({ id: me.id, ...change })).rejects.toMatchObject({
        code: 'PRECONDITION_FAILED',
        message: 'You are the last active admin; make another user an admin first.',
      });
    }
    const other = await caller.users.create({ email: 'second@example.com', role: 'admin' });
    // Two admins demoting each other at once: exactly one may succeed.
    const otherCaller = callerAs(db2.pool, { id: other.user.id, email: other.user.email, role: 'admin' });
    const results = await Promise.allSettled([
      caller.users.update({ id: other.user.id, role: 'viewer' }),
      otherCaller.users.update({ id: me.id, role: 'viewer' }),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const admins = await db2.pool.query(`SELECT count(*)::int AS n FROM users WHERE role = 'admin' AND active`);
    expect(admins.rows[0].n).toBe(1);
  });

  it('viewers and operators are refused every user mutation with FORBIDDEN', async () => {
    for (const role of ['viewer', 'operator'] as const) {
      const caller = callerAs(db.pool, { id: admin.id, email: `x-${role}@example.com`, role });
      await expect(caller.users.create({ email: 'nope@example.com', role: 'admin' })).rejects.toMatchObject({
        code: 'FORBIDDEN',
        message: `This needs the admin role; you are signed in as ${role}.`,
      });
      await expect(caller.users.update({ id: admin.id, role: 'viewer' })).rejects.toMatchObject({ code: 'FORBIDDEN' });
      await expect(caller.tokens.create({ name: 'x', role: 'producer' })).rejects.toMatchObject({ code: 'FORBIDDEN' });
      expect((await caller.users.list()).length).toBeGreaterThan(0);
    }
    await expect(callerAs(db.pool, null).users.list()).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
  });

  it('zod input errors come back field by field through the formatter shape', async () => {
    const e = (await callerAs(db.pool, admin)
      .users.create({ email: 'not-an-email', role: 'boss' as never, password: 'short' })
      .catch((x: unknown) => x)) as TRPCError;
    expect(e.code).toBe('BAD_REQUEST');
    expect(e.message).toMatch(/^Invalid input: email: must be an email address; role: must be one of viewer, operator, admin; password: must be at least 12 characters$/);
  });
});

describe('audit is written in the same transaction as the change', () => {
  it('a change that fails after its audit insert leaves neither the change nor the audit row', async () => {
    const db = await testDatabase();
    const { user } = await createUser(db.pool, SYSTEM_ACTOR, { email: 'tx@example.com', role: 'operator', password: 'tx-password-123' });
    await db.pool.query(`
      CREATE FUNCTION fail_deactivate_audit() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.action = 'user.deactivate' THEN RAISE EXCEPTION 'injected failure after the audit insert'; END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER fail_deactivate_audit AFTER INSERT ON audit_log FOR EACH ROW EXECUTE FUNCTION fail_deactivate_audit();`);
    await expect(updateUser(db.pool, SYSTEM_ACTOR, { id: user.id, active: false })).rejects.toThrow(/injected failure/);
    expect((await db.pool.query(`SELECT active FROM users WHERE id = $1`, [user.id])).rows[0].active).toBe(true);
    expect((await db.pool.query(`SELECT 1 FROM audit_log WHERE action = 'user.deactivate'`)).rowCount).toBe(0);
  });

  it('a change that fails leaves no audit row', async () => {
    const db = await testDatabase();
    const { user } = await createUser(db.pool, SYSTEM_ACTOR, { email: 'tx2@example.com', role: 'operator', password: 'tx-password-123' });
    await db.pool.query(`
      CREATE FUNCTION fail_role_update() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'injected failure in the change'; END $$;
      CREATE TRIGGER fail_role_update BEFORE UPDATE OF role ON users FOR EACH ROW EXECUTE FUNCTION fail_role_update();`);
    const before = (await db.pool.query(`SELECT count(*)::int AS n FROM audit_log`)).rows[0].n;
    await expect(updateUser(db.pool, SYSTEM_ACTOR, { id: user.id, role: 'admin' })).rejects.toThrow(/injected failure/);
    expect((await db.pool.query(`SELECT count(*)::int AS n FROM audit_log`)).rows[0].n).toBe(before);
  });
});
