// Guarded rollout through the tRPC routers: a viewer sees guards but cannot apply with
// guard, promote or abort (FORBIDDEN, nothing written); an operator applies with guard
// (tasks.save with `guard`), lists it with the server's clock and the bake left, and
// promotes it; bad input comes back BAD_REQUEST naming the field.
import { describe, it, expect, beforeAll } from 'vitest';
import { TRPCError } from '@trpc/server';
import { testDatabase, type TestDatabase } from './db';
import { callerAs } from '../support/trpc-caller';
import { createUser } from '../../server/services/users';
import { SYSTEM_ACTOR } from '../../server/db/audit';
import type { SessionUser } from '../../server/services/sessions';

let db: TestDatabase;
let viewer: SessionUser;
let operator: SessionUser;

async function user(email: string, role: 'viewer' | 'operator'): Promise<SessionUser> {
  const { user: u } = await createUser(db.pool, SYSTEM_ACTOR, { email, role, password: 'a-long-password-123' });
  return { id: u.id, email: u.email, role };
}

async function trpcError(p: Promise<unknown>): Promise<TRPCError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(TRPCError);
    return e as TRPCError;
  }
  throw new Error('expected a TRPCError');
}

const mail = (limit: number) => ({ name: 'send-mail', groups: [{ name: 'tenant', limit, keyPath: 'tenant' }] });

beforeAll(async () => {
  db = await testDatabase();
  viewer = await user('viewer@example.com', 'viewer');
  operator = await user('operator@example.com', 'operator');
  await callerAs(db.pool, operator).tasks.save({ mode: 'create', task: mail(8), basedOn: null, message: 'add' });
});

describe('guard procedures', () => {
  it('an operator applies with guard, sees the countdown, promotes; a viewer only reads', async () => {
    const op = callerAs(db.pool, operator);
    const v = callerAs(db.pool, viewer);
    const refused = await trpcError(v.tasks.save({ mode: 'update', task: mail(1), basedOn: 1, message: 'm', guard: { bakeMs: 120_000 } }));
    expect(refused.code).toBe('FORBIDDEN');

    const applied = await op.tasks.save({ mode: 'update', task: mail(1), basedOn: 1, message: 'globex 1', guard: { bakeMs: 120_000 } });
    const list = await v.config.guards({});
    expect(list.guards).toHaveLength(1);
    expect(list.guards[0]).toMatchObject({ version: applied.version, status: 'baking', tasks: ['send-mail'], ruleText: 'any critical alert', bakeText: '2m', createdBy: 'operator@example.com' });
    expect(list.guards[0]!.remainingMs).toBeGreaterThan(100_000);
    expect(list.guards[0]!.remainingMs).toBeLessThanOrEqual(120_000);
    expect((await v.config.guards({ task: 'other' })).guards).toEqual([]);
    const history = await v.config.history({ task: 'send-mail' });
    expect(history.versions[0]!.guard).toMatchObject({ version: applied.version, status: 'baking' });

    for (const w of [v.config.promoteGuard({ version: applied.version }), v.config.abortGuard({ version: applied.version })]) {
      expect((await trpcError(w)).code).toBe('FORBIDDEN');
    }
    expect((await db.pool.query(`SELECT status FROM config_guards`)).rows).toEqual([{ status: 'baking' }]);

    expect(await op.config.promoteGuard({ version: applied.version })).toMatchObject({ status: 'promoted', rollbackVersion: null });
    expect((await v.config.guards({ baking: true })).guards).toEqual([]);
  });

  it('bad input: BAD_REQUEST naming the field, nothing written', async () => {
    const op = callerAs(db.pool, operator);
    const before = (await db.pool.query('SELECT max(version)::int AS v FROM config_versions')).rows[0].v;
    const badBake = await trpcError(op.tasks.save({ mode: 'update', task: mail(2), basedOn: before, message: 'm', guard: { bakeMs: 1000 } }));
    expect(badBake.code).toBe('BAD_REQUEST');
    expect(badBake.message).toContain('guard.bakeMs: must be at least 30 seconds');
    const badVersion = await trpcError(op.config.abortGuard({ version: 0 }));
    expect(badVersion.code).toBe('BAD_REQUEST');
    expect(badVersion.message).toContain('version: must be a config version');
    const noGuard = await trpcError(op.config.abortGuard({ version: 1 }));
    expect(noGuard.code).toBe('NOT_FOUND');
    expect((noGuard.cause as { fieldErrors?: unknown }).fieldErrors).toEqual([{ path: 'version', message: 'has no guard' }]);
    expect((await db.pool.query('SELECT max(version)::int AS v FROM config_versions')).rows[0].v).toBe(before);
  });
});
