// `npx sluice users create` and `npx sluice tokens create|revoke` end to end: the real
// CLI in a child process against a test database.
import { describe, it, expect, beforeAll } from 'vitest';
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { testDatabase, type TestDatabase } from './db';
import { verifyPassword } from '../../server/services/passwords';
import { authenticateToken } from '../../server/services/tokens';

const root = path.resolve(import.meta.dirname, '..', '..');

function sluice(db: TestDatabase, ...args: string[]) {
  const r = spawnSync(process.execPath, [path.join(root, 'bin', 'sluice.js'), ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, DATABASE_URL: db.url, NODE_ENV: 'test' },
    timeout: 60_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, lastLine: r.stdout.trimEnd().split('\n').at(-1) ?? '' };
}

describe('sluice users / tokens CLI', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await testDatabase();
  });

  it('users create prints a generated password that signs in, audited as the cli actor', async () => {
    const r = sluice(db, 'users', 'create', '--email', 'cli-op@example.com', '--role', 'operator');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.lastLine).toMatch(/^[A-Za-z2-9]{20}$/);
    const row = await db.pool.query(`SELECT id, role, password_hash FROM users WHERE email = 'cli-op@example.com'`);
    expect(row.rows[0].role).toBe('operator');
    expect(await verifyPassword(row.rows[0].password_hash, r.lastLine)).toBe(true);
    const audit = await db.pool.query(`SELECT actor_type, actor_id, actor_label FROM audit_log WHERE target_id = $1`, [row.rows[0].id]);
    expect(audit.rows).toEqual([{ actor_type: 'cli', actor_id: null, actor_label: `cli (${os.userInfo().username}@${os.hostname()})` }]);
  });

  it('users create refuses a bad role with a clear message and status 2', () => {
    const r = sluice(db, 'users', 'create', '--email', 'x@example.com', '--role', 'boss', '--password', 'short');
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('role: must be one of viewer, operator, admin');
    expect(r.stderr).toContain('password: must be at least 12 characters');
    expect(r.stderr).not.toMatch(/\bat .*\.ts:\d+/); // no stack trace
  });

  it('tokens create prints the token last; it authenticates until revoked by prefix', async () => {
    const r = sluice(db, 'tokens', 'create', '--name', 'cli producer', '--role', 'producer');
    expect(r.status).toBe(0);
    const token = r.lastLine;
    expect(token).toMatch(/^slc_[a-z0-9]{8}_[A-Za-z0-9]{40}$/);
    expect(await authenticateToken(db.pool, token)).toMatchObject({ name: 'cli producer', role: 'producer' });

    const revoke = sluice(db, 'tokens', 'revoke', token.slice(4, 12));
    expect(revoke.status).toBe(0);
    expect(revoke.stdout).toContain('Revoked "cli producer"');
    expect(await authenticateToken(db.pool, token)).toBeNull();
    const again = sluice(db, 'tokens', 'revoke', token.slice(4, 12));
    expect(again.status).toBe(2);
    expect(again.stderr).toContain('already revoked');
  });
});
