// The prune-sign-ins control-plane service on Postgres: expired sessions and throttle rows
// that count nothing any more are deleted; live sessions and rows still counting (or
// locking) stay.
import { describe, it, expect, beforeAll } from 'vitest';
import { testDatabase, type TestDatabase } from './db';
import { createUser } from '../../server/services/users';
import { SYSTEM_ACTOR } from '../../server/db/audit';
import { createSession, resolveSession, sha256Hex } from '../../server/services/sessions';
import { runServiceOnce } from '../../server/db/maintenance-runner';
import { pruneSignInsService } from '../../server/control-plane/services/prune-sign-ins';
import { controlPlaneServices } from '../../server/control-plane/services';

let db: TestDatabase;

beforeAll(async () => {
  db = await testDatabase();
});

describe('prune-sign-ins', () => {
  it('is one of the control-plane services', () => {
    expect(controlPlaneServices).toContain(pruneSignInsService);
  });

  it('deletes expired sessions and stale throttle rows, and nothing that still counts', async () => {
    const { user } = await createUser(db.pool, SYSTEM_ACTOR, { email: 'prune@example.com', role: 'viewer', password: 'correct-horse-battery' });
    const live = await createSession(db.pool, user.id, { hours: 1, userAgent: null, ip: null });
    const expired = await createSession(db.pool, user.id, { hours: 1, userAgent: null, ip: null });
    await db.pool.query(`UPDATE sessions SET expires_at = now() - interval '1 minute' WHERE token_hash = $1`, [sha256Hex(expired.token)]);
    expect(await resolveSession(db.pool, expired.token)).toBeNull();
    expect(await resolveSession(db.pool, live.token)).not.toBeNull();

    await db.pool.query(
      `INSERT INTO login_throttle (key, failures, window_start, locked_until) VALUES
         ('email:stale@example.com', 3, now() - interval '2 hours', NULL),
         ('ip:10.0.0.1', 20, now() - interval '2 hours', now() - interval '1 hour'),
         ('email:counting@example.com', 30, now() - interval '30 minutes', NULL),
         ('pair:["locked@example.com","10.0.0.2"]', 5, now() - interval '2 hours', now() + interval '5 minutes')`,
    );

    const r = await runServiceOnce(db.pool, pruneSignInsService, { intervalMs: 0, namespace: 'cp:' }, { log: () => {} });
    expect(r).toEqual({ ran: true, result: { sessions: 1, throttleRows: 2 } });

    const sessions = await db.pool.query(`SELECT count(*)::int AS n FROM sessions WHERE user_id = $1`, [user.id]);
    expect(sessions.rows[0].n).toBe(1);
    expect(await resolveSession(db.pool, live.token)).not.toBeNull();
    const keys = await db.pool.query(`SELECT key FROM login_throttle ORDER BY key`);
    expect(keys.rows.map((k) => k.key)).toEqual(['email:counting@example.com', 'pair:["locked@example.com","10.0.0.2"]']);
    const run = await db.pool.query(`SELECT runs, last_error FROM maintenance_runs WHERE name = 'cp:prune-sign-ins'`);
    expect(run.rows).toEqual([{ runs: 1, last_error: null }]);
  });
});
