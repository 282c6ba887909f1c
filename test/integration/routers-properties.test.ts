// Property: whatever a client sends to the auth/users/tokens/audit procedures, the
// answer is a success or a 4xx-class TRPCError with a readable message — never an
// INTERNAL_SERVER_ERROR. Inputs are arbitrary values and near-valid shapes.
import { describe, it, expect, beforeAll } from 'vitest';
import fc from 'fast-check';
import { TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import { testDatabase, type TestDatabase } from './db';
import { callerAs } from '../support/trpc-caller';
import { createUser } from '../../server/services/users';
import { SYSTEM_ACTOR } from '../../server/db/audit';
import type { SessionUser } from '../../server/services/sessions';

async function outcome(p: Promise<unknown>): Promise<void> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(TRPCError);
    const err = e as TRPCError;
    const status = getHTTPStatusCodeFromError(err);
    if (status < 400 || status >= 500) throw new Error(`got ${err.code} (${status}): ${err.message}\ncause: ${String(err.cause)}`);
    expect(err.message.length).toBeGreaterThan(3);
    expect(err.message).not.toMatch(/^\[\s*\{/); // not a raw JSON dump of zod issues
  }
}

const text = fc.oneof(fc.string(), fc.string({ unit: 'grapheme', maxLength: 400 }), fc.constantFrom('', ' ', 'a@b', 'x'.repeat(5000)));
const email = fc.oneof(fc.emailAddress(), text);
const role = fc.oneof(fc.constantFrom('viewer', 'operator', 'admin', 'producer', 'root', ''), fc.anything());
const id = fc.oneof(fc.uuid(), text, fc.constant('00000000-0000-0000-0000-000000000000'));
const anyInput = fc.anything({ withDate: true, withMap: true, withBigInt: true, withNullPrototype: true });

describe('router properties (fast-check)', () => {
  let db: TestDatabase;
  let admin: SessionUser;

  beforeAll(async () => {
    db = await testDatabase();
    const { user } = await createUser(db.pool, SYSTEM_ACTOR, { email: 'prop-admin@example.com', role: 'admin', password: 'prop-admin-pass-1' });
    admin = { id: user.id, email: user.email, role: 'admin' };
  });

  it('auth.signIn: any input → success or 4xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(anyInput, fc.record({ email, password: text })),
        fc.ipV4(),
        async (input, ip) => outcome(callerAs(db.pool, null, { ip }).auth.signIn(input as never)),
      ),
      { numRuns: 60 },
    );
  });

  it('users.create / update / resetPassword as admin: any input → success or 4xx', async () => {
    const caller = callerAs(db.pool, admin);
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(anyInput, fc.record({ email, role, password: fc.option(text, { nil: undefined }) }, { requiredKeys: ['email', 'role'] })),
        async (input) => outcome(caller.users.create(input as never)),
      ),
      { numRuns: 60 },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(anyInput, fc.record({ id: fc.oneof(id, fc.constant(admin.id)), role, active: fc.oneof(fc.boolean(), fc.anything()) }, { requiredKeys: ['id'] })),
        async (input) => outcome(caller.users.update(input as never)),
      ),
      { numRuns: 80 },
    );
    await fc.assert(
      fc.asyncProperty(fc.oneof(anyInput, fc.record({ id, password: text })), async (input) => outcome(caller.users.resetPassword(input as never))),
      { numRuns: 30 },
    );
    // The admin is still there and still an admin: no input demoted the last one.
    const me = await db.pool.query(`SELECT role, active FROM users WHERE id = $1`, [admin.id]);
    expect(me.rows[0]).toEqual({ role: 'admin', active: true });
  });

  it('tokens and audit: any input → success or 4xx; anonymous and viewer callers get 401/403', async () => {
    const caller = callerAs(db.pool, admin);
    await fc.assert(
      fc.asyncProperty(fc.oneof(anyInput, fc.record({ name: text, role })), async (input) => outcome(caller.tokens.create(input as never))),
      { numRuns: 50 },
    );
    await fc.assert(
      fc.asyncProperty(fc.oneof(anyInput, fc.record({ id })), async (input) => outcome(caller.tokens.revoke(input as never))),
      { numRuns: 40 },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          anyInput,
          fc.record(
            { actor: text, action: text, targetType: text, targetId: text, from: fc.date(), to: fc.date(), cursor: text, limit: fc.integer() },
            { requiredKeys: [] },
          ),
        ),
        async (input) => outcome(caller.audit.list(input as never)),
      ),
      { numRuns: 80 },
    );
    const viewer = callerAs(db.pool, { ...admin, role: 'viewer' });
    const anon = callerAs(db.pool, null);
    await fc.assert(
      fc.asyncProperty(anyInput, async (input) => {
        for (const p of [viewer.users.create(input as never), viewer.tokens.revoke(input as never), anon.users.list(), anon.audit.list(input as never)]) {
          const e = await p.then(() => null, (x: unknown) => x);
          expect(e).toBeInstanceOf(TRPCError);
          expect(['UNAUTHORIZED', 'FORBIDDEN']).toContain((e as TRPCError).code);
        }
      }),
      { numRuns: 40 },
    );
  });
});
