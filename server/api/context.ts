// The per-request tRPC context: the pg pool (services and presenters alike; docs/
// architecture.md, "Data access"), the signed-in user (from the session cookie), the client's address, and a cookie jar
// the auth router uses to set or clear the session cookie. Built by the HTTP route
// handler and by server components (read-only cookies); tests build it directly.
import type pg from 'pg';
import { getPool, getReadPool } from '../db/pool';
import { env } from '../env';
import { resolveSession, SESSION_COOKIE, type SessionUser } from '../services/sessions';
import { clientAddress } from '../core/client-address';

export interface CookieOptions {
  expires?: Date;
}

export interface CookieJar {
  get(name: string): string | undefined;
  set(name: string, value: string, opts?: CookieOptions): void;
  delete(name: string): void;
}

export interface Context {
  db: pg.Pool;
  /** Where read-mostly pages read (Overview, charts, executions and dead-letter lists,
   *  audit): the streaming replica of DATABASE_REPLICA_URL, else `db`. Never for a read
   *  that must see this caller's own write. */
  readDb: pg.Pool;
  user: SessionUser | null;
  sessionToken: string | null;
  client: { ip: string; userAgent: string | null };
  cookies: CookieJar;
  sessionHours: number;
}

export async function createContext(opts: {
  headers: Headers;
  cookies: CookieJar;
  db?: pg.Pool;
  readDb?: pg.Pool;
}): Promise<Context> {
  const db = opts.db ?? getPool();
  // A caller that passes its own primary (tests) reads from it too unless it passes a replica.
  const readDb = opts.readDb ?? (opts.db ? opts.db : getReadPool());
  const sessionToken = opts.cookies.get(SESSION_COOKIE) ?? null;
  const user = await resolveSession(db, sessionToken);
  return {
    db,
    readDb,
    user,
    sessionToken: user ? sessionToken : null,
    client: { ip: clientAddress(opts.headers, env().SLUICE_TRUSTED_PROXIES), userAgent: opts.headers.get('user-agent') },
    cookies: opts.cookies,
    sessionHours: env().SLUICE_SESSION_HOURS,
  };
}
