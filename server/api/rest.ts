// The REST surface (/api/v1/*) for producers and scripts: Bearer API tokens, JSON in
// and out, CoreError → HTTP status through the same mapping as tRPC's formatter
// (errorReply in api/rest-enqueue.ts). A route file is: restRoute(roles, handler); the
// handler gets the database handle in its context, so route files never reach for the pool.
import type pg from 'pg';
import { getPool } from '../db/pool';
import { authenticateToken } from '../services/tokens';
import { errorReply, type RestReply } from './rest-enqueue';
import type { Actor } from '../db/audit';
import { tokenActor } from '../services/tokens';
import { CoreError } from '../core/errors';
import type { TokenRole } from '../core/roles';

export type { TokenRole };

export interface RestContext {
  req: Request;
  token: { id: string; name: string; role: TokenRole };
  actor: Actor;
  /** The parsed JSON body (POST/PUT/PATCH); a malformed body is a 400 before the handler runs. */
  body: unknown;
  /** The control plane's pool. */
  db: pg.Pool;
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
}

export function replyToResponse(r: RestReply): Response {
  return new Response(JSON.stringify(r.body), { status: r.status, headers: r.headers });
}

/** Wraps a handler with token authentication, a role check and error mapping. */
export function restRoute<P>(
  roles: readonly TokenRole[],
  handler: (ctx: RestContext, params: P) => Promise<RestReply | Response>,
) {
  return async (req: Request, route: { params: Promise<P> }): Promise<Response> => {
    const pool = getPool();
    const token = await authenticateToken(pool, req.headers.get('authorization'));
    if (!token) {
      return json(401, { error: 'a valid API token is required: Authorization: Bearer slc_…', code: 'UNAUTHORIZED' }, { 'www-authenticate': 'Bearer' });
    }
    if (!roles.includes(token.role)) {
      return json(403, { error: `a ${token.role} token cannot do this; needs one of: ${roles.join(', ')}`, code: 'FORBIDDEN' });
    }
    let body: unknown = undefined;
    if (req.method !== 'GET' && req.method !== 'HEAD' && req.method !== 'DELETE') {
      const text = await req.text();
      try {
        body = text === '' ? undefined : JSON.parse(text);
      } catch {
        return replyToResponse(errorReply(CoreError.badRequest('the request body is not valid JSON')));
      }
    }
    try {
      const out = await handler({ req, token, actor: tokenActor(token), body, db: pool }, await route.params);
      return out instanceof Response ? out : replyToResponse(out);
    } catch (e) {
      try {
        return replyToResponse(errorReply(e));
      } catch {
        console.error('[rest]', e);
        return json(500, { error: 'internal error', code: 'INTERNAL' });
      }
    }
  };
}
