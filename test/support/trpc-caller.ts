// tRPC callers for integration tests: the real app router over a test database, with
// an in-memory cookie jar standing in for the browser.
import type pg from 'pg';
import { TRPCError } from '@trpc/server';
import { createCaller } from '../../server/api/root';
import type { Context, CookieJar } from '../../server/api/context';
import type { SessionUser } from '../../server/services/sessions';
import { resolveSession, SESSION_COOKIE } from '../../server/services/sessions';

export class MemoryCookieJar implements CookieJar {
  readonly values = new Map<string, string>();
  get(name: string) {
    return this.values.get(name);
  }
  set(name: string, value: string) {
    this.values.set(name, value);
  }
  delete(name: string) {
    this.values.delete(name);
  }
}

export function contextFor(
  pool: pg.Pool,
  user: SessionUser | null,
  opts: { ip?: string; cookies?: MemoryCookieJar; sessionHours?: number; readPool?: pg.Pool } = {},
): Context {
  const cookies = opts.cookies ?? new MemoryCookieJar();
  const readPool = opts.readPool ?? pool;
  return {
    db: pool,
    readDb: readPool,
    user,
    sessionToken: cookies.get(SESSION_COOKIE) ?? null,
    client: { ip: opts.ip ?? '127.0.0.1', userAgent: 'vitest' },
    cookies,
    sessionHours: opts.sessionHours ?? 24,
  };
}

/** A caller acting as `user` (null: signed out). */
export function callerAs(pool: pg.Pool, user: SessionUser | null, opts: Parameters<typeof contextFor>[2] = {}) {
  return createCaller(contextFor(pool, user, opts));
}

/** A caller whose user comes from the jar's session cookie, as a browser request would. */
export async function callerFromCookies(pool: pg.Pool, cookies: MemoryCookieJar, ip = '127.0.0.1') {
  const user = await resolveSession(pool, cookies.get(SESSION_COOKIE));
  return createCaller(contextFor(pool, user, { cookies, ip }));
}

/** The tRPC error code a call ends with ('OK' when it succeeds): `expect(await trpcCode(call)).toBe('FORBIDDEN')`. */
export async function trpcCode(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'OK';
  } catch (e) {
    return e instanceof TRPCError ? e.code : `not a TRPCError: ${String(e)}`;
  }
}
