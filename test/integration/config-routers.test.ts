// The tasks / config / coordinators routers: role checks in one place (a viewer reads,
// cannot write), CoreErrors mapped to their tRPC codes with field errors, and — a
// property — whatever an editor sends as a task, the answer is a success or a 4xx.
import { describe, it, expect, beforeAll } from 'vitest';
import fc from 'fast-check';
import { TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import { testDatabase, type TestDatabase } from './db';
import { callerAs } from '../support/trpc-caller';
import { createUser } from '../../server/services/users';
import { SYSTEM_ACTOR } from '../../server/db/audit';
import { registerCoordinator } from '../../server/db/coordinator-membership';
import type { SessionUser } from '../../server/services/sessions';

let db: TestDatabase;
let viewer: SessionUser;
let operator: SessionUser;

async function user(email: string, role: 'viewer' | 'operator' | 'admin'): Promise<SessionUser> {
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

beforeAll(async () => {
  db = await testDatabase();
  viewer = await user('viewer@example.com', 'viewer');
  operator = await user('operator@example.com', 'operator');
});

describe('roles', () => {
  it('a viewer reads tasks, history and coordinators but cannot change anything', async () => {
    const v = callerAs(db.pool, viewer);
    expect(await v.tasks.list()).toEqual({ version: null, author: null, createdAt: null, tasks: [] });
    expect((await v.config.history({})).versions).toEqual([]);
    expect((await v.coordinators.list()).coordinators).toEqual([]);
    const writes = [
      v.tasks.save({ mode: 'create', task: { name: 'x' }, basedOn: null, message: 'm' }),
      v.tasks.preview({ mode: 'create', task: { name: 'x' }, basedOn: null }),
      v.tasks.setPaused({ task: 'x', paused: true }),
      v.tasks.delete({ task: 'x', basedOn: 1, message: 'm' }),
      v.config.rollback({ to: 1, basedOn: 1 }),
      v.coordinators.drain({ id: '00000000-0000-4000-8000-000000000000' }),
    ];
    for (const w of writes) {
      const e = await trpcError(w);
      expect(e.code).toBe('FORBIDDEN');
      expect(e.message).toBe('This needs the operator role; you are signed in as viewer.');
    }
    expect((await db.pool.query('SELECT count(*)::int AS n FROM config_versions')).rows[0]).toEqual({ n: 0 });
  });

  it('signed out: UNAUTHORIZED even for reads', async () => {
    expect((await trpcError(callerAs(db.pool, null).tasks.list())).code).toBe('UNAUTHORIZED');
  });
});

describe('operator flow through the routers', () => {
  it('create → edit with a stale base → CONFLICT; field errors reach the client', async () => {
    const op = callerAs(db.pool, operator);
    const created = await op.tasks.save({ mode: 'create', task: { name: 'send-email', groups: [{ name: 'tenant', limit: 20, keyPath: 'tenant' }] }, basedOn: null, message: 'add' });
    expect(created.version).toBe(1);
    expect((await op.tasks.get({ name: 'send-email' })).definition.groups[0]).toMatchObject({ name: 'tenant', limit: 20 });
    await op.tasks.save({ mode: 'update', task: { name: 'send-email', groups: [{ name: 'tenant', limit: 10, keyPath: 'tenant' }] }, basedOn: 1, message: 'ten' });
    const stale = await trpcError(op.tasks.save({ mode: 'update', task: { name: 'send-email', groups: [{ name: 'tenant', limit: 5, keyPath: 'tenant' }] }, basedOn: 1, message: 'five' }));
    expect(stale.code).toBe('CONFLICT');
    expect(stale.message).toContain('config changed since version 1');

    const invalid = await trpcError(op.tasks.preview({ mode: 'update', task: { name: 'send-email', groups: [{ name: 'tenant', limit: 0 }] }, basedOn: 2 }));
    expect(invalid.code).toBe('BAD_REQUEST');
    expect((invalid.cause as { fieldErrors?: unknown }).fieldErrors).toEqual([{ path: 'groups.0.limit', message: 'must be at least 1' }]);

    const missing = await trpcError(op.tasks.get({ name: 'nope' }));
    expect(missing.code).toBe('NOT_FOUND');
    const noMessage = await trpcError(op.tasks.save({ mode: 'update', task: { name: 'send-email' }, basedOn: 2, message: '  ' }));
    expect(noMessage.code).toBe('BAD_REQUEST');
    expect(noMessage.message).toBe('Invalid input: message: describe the change (it is shown in the history)');
  });

  it('drain: marks the coordinator draining, audited; twice is refused', async () => {
    const id = await registerCoordinator(db.pool, { name: 'c1', host: 'h', pid: 1, tasks: ['send-email'], slots: 4, metricsPort: null });
    const op = callerAs(db.pool, operator);
    expect(await op.coordinators.drain({ id })).toEqual({ id, name: 'c1', releasedPartitions: 0 });
    expect((await op.coordinators.list()).coordinators[0]).toMatchObject({ name: 'c1', status: 'draining' });
    expect((await trpcError(op.coordinators.drain({ id }))).code).toBe('PRECONDITION_FAILED');
    const audit = await db.pool.query(`SELECT actor_label, action, target_id FROM audit_log WHERE action = 'coordinator.drain'`);
    expect(audit.rows).toEqual([{ actor_label: 'operator@example.com', action: 'coordinator.drain', target_id: id }]);
  });
});

describe('property: any task input → success or 4xx, never a 500', () => {
  const anyInput = fc.anything({ withDate: true, withMap: true, withBigInt: true, withNullPrototype: true });
  const nearTask = fc.record(
    {
      name: fc.oneof(fc.constantFrom('prop-task', 'Prop', '', 'a'.repeat(70)), fc.string()),
      concurrency: fc.oneof(fc.integer(), fc.double(), fc.string(), fc.constant(null)),
      partitions: fc.oneof(fc.integer({ min: -5, max: 2000 }), fc.constant('4')),
      groups: fc.oneof(
        fc.array(fc.record({ name: fc.string(), limit: fc.oneof(fc.integer(), fc.string()), overrides: fc.dictionary(fc.string(), fc.oneof(fc.integer(), anyInput)) }), { maxLength: 3 }),
        anyInput,
      ),
      routing: fc.oneof(fc.record({ strategy: fc.constantFrom('hash', 'round-robin', 'x'), keyPath: fc.oneof(fc.string(), fc.constantFrom('a.b', '..')) }), anyInput),
      thresholds: fc.oneof(fc.record({ depth: fc.record({ warning: fc.double(), critical: fc.double() }) }), anyInput),
    },
    { requiredKeys: [] },
  );

  it('tasks.preview and tasks.save', async () => {
    const op = callerAs(db.pool, operator);
    await fc.assert(
      fc.asyncProperty(fc.oneof(nearTask, anyInput), fc.constantFrom('create', 'update', 'other'), fc.oneof(fc.constant(null), fc.integer()), async (task, mode, basedOn) => {
        for (const call of [
          () => op.tasks.preview({ mode, task, basedOn } as never),
          () => op.tasks.save({ mode, task, basedOn, message: 'prop' } as never),
        ]) {
          try {
            await call();
          } catch (e) {
            expect(e).toBeInstanceOf(TRPCError);
            const status = getHTTPStatusCodeFromError(e as TRPCError);
            if (status < 400 || status >= 500) throw new Error(`got ${(e as TRPCError).code}: ${(e as Error).message}\ncause: ${String((e as TRPCError).cause)}`);
          }
        }
      }),
      { numRuns: 120 },
    );
  });
});
