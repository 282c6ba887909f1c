// Seeding for specs: users straight into the e2e database through the same service the
// app uses, and a session through the API (not the login form) for specs that are not
// about signing in.
import type { APIRequestContext } from '@playwright/test';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createUser } from '../../server/services/users';
import { SYSTEM_ACTOR } from '../../server/db/audit';
import type { Role } from '../../server/core/roles';
import { e2eEnv } from './e2e-env';

let pool: pg.Pool | undefined;
export function e2eDb(): pg.Pool {
  pool ??= new pg.Pool({ connectionString: e2eEnv().databaseUrl, max: 2 });
  return pool;
}

export function uniqueEmail(tag: string): string {
  return `${tag}-${randomBytes(4).toString('hex')}@sluice.test`;
}

export async function seedUser(role: Role, tag: string = role): Promise<{ id: string; email: string; password: string; role: Role }> {
  const email = uniqueEmail(tag);
  const password = `pw-${randomBytes(8).toString('hex')}`;
  const { user } = await createUser(e2eDb(), SYSTEM_ACTOR, { email, role, password });
  return { id: user.id, email, password, role };
}

/** A tRPC call over HTTP, as the browser makes it (superjson envelope). */
export async function trpcMutation(request: APIRequestContext, path: string, input: unknown, headers: Record<string, string> = {}) {
  const res = await request.post(`${e2eEnv().baseUrl}/api/trpc/${path}`, { data: { json: input }, headers });
  return { status: res.status(), body: (await res.json()) as { result?: { data: { json: unknown } }; error?: { json: { message: string; data: { code: string } } } } };
}

/** Signs in through the API; the request context (a page's, or a standalone one) keeps the cookie. */
export async function signInViaApi(request: APIRequestContext, who: { email: string; password: string }): Promise<void> {
  const r = await trpcMutation(request, 'auth.signIn', { email: who.email, password: who.password });
  if (r.status !== 200) throw new Error(`sign-in for ${who.email} failed (${r.status}): ${JSON.stringify(r.body)}`);
}
