// The Audit list: filters, keyset pagination in (at, id) order, and the diff per entry.
import { describe, it, expect, beforeAll } from 'vitest';
import { testDatabase, type TestDatabase } from './db';
import { recordAudit, SYSTEM_ACTOR } from '../../server/db/audit';
import { callerAs } from '../support/trpc-caller';
import type { SessionUser } from '../../server/services/sessions';

describe('audit list', () => {
  let db: TestDatabase;
  const viewer: SessionUser = { id: '00000000-0000-4000-8000-000000000001', email: 'v@example.com', role: 'viewer' };

  beforeAll(async () => {
    db = await testDatabase();
    const alice = { type: 'user' as const, id: 'a', label: 'alice@example.com' };
    const bob = { type: 'user' as const, id: 'b', label: 'bob@example.com' };
    // 30 entries; ten share one timestamp so the id tie-break is exercised.
    for (let i = 0; i < 30; i++) {
      await recordAudit(db.pool, i % 2 ? alice : bob, {
        action: i % 3 === 0 ? 'user.create' : i % 3 === 1 ? 'user.change_role' : 'token.revoke',
        targetType: i % 3 === 2 ? 'api_token' : 'user',
        targetId: `t${i}`,
        before: i % 3 === 1 ? { role: 'viewer' } : undefined,
        after: i % 3 === 1 ? { role: 'admin' } : { n: i },
      });
    }
    await db.pool.query(`UPDATE audit_log SET at = '2026-01-01T00:00:00.123456Z' WHERE id BETWEEN 5 AND 14`);
    await db.pool.query(`UPDATE audit_log SET at = '2025-06-01T00:00:00Z' WHERE id > 25`);
    await recordAudit(db.pool, SYSTEM_ACTOR, { action: 'config.apply', targetType: 'config', targetId: '1' });
  });

  it('pages through everything exactly once, newest first, in (at, id) order', async () => {
    const caller = callerAs(db.pool, viewer);
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 20; pages++) {
      const page = await caller.audit.list({ limit: 7, ...(cursor ? { cursor } : {}) });
      seen.push(...page.entries.map((e) => e.id));
      if (!page.nextCursor) break;
      cursor = page.nextCursor;
    }
    const expected = (await db.pool.query(`SELECT id::text AS id FROM audit_log ORDER BY audit_log.at DESC, audit_log.id DESC`)).rows.map((r) => r.id);
    expect(seen).toEqual(expected);
    expect(seen).toHaveLength(31);
  });

  it('filters by actor (part of the label), action (exact or prefix), target and time range', async () => {
    const caller = callerAs(db.pool, viewer);
    const byActor = await caller.audit.list({ actor: 'ALICE', limit: 200 });
    expect(byActor.entries).toHaveLength(15);
    expect(byActor.entries.every((e) => e.actor.label === 'alice@example.com')).toBe(true);

    expect((await caller.audit.list({ action: 'user.create', limit: 200 })).entries).toHaveLength(10);
    expect((await caller.audit.list({ action: 'user.', limit: 200 })).entries).toHaveLength(20);
    expect((await caller.audit.list({ action: 'user*', limit: 200 })).entries).toHaveLength(20);
    expect((await caller.audit.list({ action: 'user', limit: 200 })).entries).toHaveLength(0);

    const target = await caller.audit.list({ targetType: 'api_token', targetId: 't2' });
    expect(target.entries.map((e) => e.target)).toEqual([{ type: 'api_token', id: 't2' }]);

    const range = await caller.audit.list({ from: new Date('2025-01-01T00:00:00Z'), to: new Date('2025-12-31T00:00:00Z'), limit: 200 });
    expect(range.entries.map((e) => e.id).sort()).toEqual(['26', '27', '28', '29', '30']);

    // LIKE wildcards in the actor filter are literal.
    expect((await caller.audit.list({ actor: '%' })).entries).toHaveLength(0);
  });

  it('returns the diff of before/after per entry', async () => {
    const page = await callerAs(db.pool, viewer).audit.list({ action: 'user.change_role', limit: 1 });
    expect(page.entries[0]!.changes).toEqual([{ path: 'role', kind: 'changed', before: 'viewer', after: 'admin' }]);
  });

  it('refuses a bad range and a bad cursor with field errors', async () => {
    const caller = callerAs(db.pool, viewer);
    await expect(caller.audit.list({ from: new Date('2026-01-02'), to: new Date('2026-01-01') })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      message: 'Invalid input: to: must be after "from"',
    });
    await expect(caller.audit.list({ cursor: 'abc' })).rejects.toMatchObject({ code: 'BAD_REQUEST', message: 'Invalid input: cursor: is not a valid page cursor' });
  });
});
