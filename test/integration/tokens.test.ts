// API tokens: create (plaintext once, hash stored), authenticate, last-used, revoke.
import { describe, it, expect, beforeAll } from 'vitest';
import { testDatabase, type TestDatabase } from './db';
import { authenticateToken, createToken, revokeToken } from '../../server/services/tokens';
import { createUser } from '../../server/services/users';
import { sha256Hex } from '../../server/services/sessions';
import { userActor } from '../../server/services/auth';
import { callerAs } from '../support/trpc-caller';

describe('API tokens', () => {
  let db: TestDatabase;
  let admin: { id: string; email: string; role: 'admin' };

  beforeAll(async () => {
    db = await testDatabase();
    const { user } = await createUser(db.pool, userActor({ id: '00000000-0000-4000-8000-000000000000', email: 'setup' }), {
      email: 'tokens-admin@example.com',
      role: 'admin',
    });
    admin = { id: user.id, email: user.email, role: 'admin' };
  });

  it('creates a slc_<prefix>_<secret> token, stores only its SHA-256, and audits without the secret', async () => {
    const { token, record } = await createToken(db.pool, userActor(admin), { name: 'orders producer', role: 'producer' });
    expect(token).toMatch(/^slc_[a-z0-9]{8}_[A-Za-z0-9]{40}$/);
    expect(token.slice(4, 12)).toBe(record.prefix);
    const row = await db.pool.query(`SELECT * FROM api_tokens WHERE id = $1`, [record.id]);
    expect(row.rows[0].token_hash).toBe(sha256Hex(token));
    expect(row.rows[0].created_by).toBe(admin.id);
    const dump = JSON.stringify((await db.pool.query(`SELECT * FROM api_tokens`)).rows) +
      JSON.stringify((await db.pool.query(`SELECT * FROM audit_log`)).rows);
    expect(dump).not.toContain(token.slice(13));
    const audit = await db.pool.query(`SELECT action, after FROM audit_log WHERE target_id = $1`, [record.id]);
    expect(audit.rows).toEqual([{ action: 'token.create', after: { id: record.id, name: 'orders producer', role: 'producer', prefix: record.prefix, revokedAt: null } }]);
  });

  it('authenticates with or without "Bearer", refuses malformed and unknown tokens', async () => {
    const { token, record } = await createToken(db.pool, userActor(admin), { name: 'coord-1', role: 'coordinator' });
    const who = { id: record.id, name: 'coord-1', role: 'coordinator' };
    expect(await authenticateToken(db.pool, `Bearer ${token}`)).toEqual(who);
    expect(await authenticateToken(db.pool, token)).toEqual(who);
    expect(await authenticateToken(db.pool, token.slice(0, -1) + (token.endsWith('a') ? 'b' : 'a'))).toBeNull();
    expect(await authenticateToken(db.pool, 'slc_short')).toBeNull();
    expect(await authenticateToken(db.pool, '')).toBeNull();
    expect(await authenticateToken(db.pool, null)).toBeNull();
  });

  it('touches last_used_at at most once a minute', async () => {
    const { token, record } = await createToken(db.pool, userActor(admin), { name: 'busy', role: 'producer' });
    const lastUsed = async () => (await db.pool.query(`SELECT last_used_at FROM api_tokens WHERE id = $1`, [record.id])).rows[0].last_used_at as Date | null;
    expect(await lastUsed()).toBeNull();
    await authenticateToken(db.pool, token);
    const first = await lastUsed();
    expect(first).toBeInstanceOf(Date);
    await authenticateToken(db.pool, token);
    expect((await lastUsed())!.getTime()).toBe(first!.getTime());
    await db.pool.query(`UPDATE api_tokens SET last_used_at = now() - interval '61 seconds' WHERE id = $1`, [record.id]);
    await authenticateToken(db.pool, token);
    expect(Date.now() - (await lastUsed())!.getTime()).toBeLessThan(5_000);
  });

  it('a revoked token no longer authenticates; revoking twice is a conflict', async () => {
    const { token, record } = await createToken(db.pool, userActor(admin), { name: 'to-revoke', role: 'producer' });
    const revoked = await revokeToken(db.pool, userActor(admin), { id: record.id });
    expect(revoked.revokedAt).toBeInstanceOf(Date);
    expect(await authenticateToken(db.pool, token)).toBeNull();
    await expect(revokeToken(db.pool, userActor(admin), { id: record.id })).rejects.toMatchObject({ code: 'CONFLICT' });
    await expect(revokeToken(db.pool, userActor(admin), { id: '9b2f7a8e-0000-4000-8000-000000000000' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('the router lists tokens with prefix, creator and last use, never the hash', async () => {
    const caller = callerAs(db.pool, admin);
    const created = await caller.tokens.create({ name: 'listed', role: 'viewer' });
    await authenticateToken(db.pool, created.token);
    const list = await caller.tokens.list();
    const row = list.find((t) => t.id === created.id)!;
    expect(row).toMatchObject({ name: 'listed', role: 'viewer', createdBy: admin.email, revokedAt: null });
    expect(row.display).toBe(`slc_${created.token.slice(4, 12)}_…`);
    expect(row.lastUsedAt).toBeInstanceOf(Date);
    expect(JSON.stringify(list)).not.toContain(sha256Hex(created.token));
  });

  it('rejects bad names and roles field by field', async () => {
    await expect(createToken(db.pool, userActor(admin), { name: '  ', role: 'producer' })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      fieldErrors: [{ path: 'name', message: 'give the token a name' }],
    });
    await expect(createToken(db.pool, userActor(admin), { name: 'x', role: 'root' as never })).rejects.toMatchObject({
      fieldErrors: [{ path: 'role', message: 'must be one of producer, coordinator, operator, viewer' }],
    });
  });
});
