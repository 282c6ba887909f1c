// The REST surface (/api/v1/*) for producers and scripts: Bearer API tokens, JSON in
// and out, CoreError → HTTP status through the one mapping (server/api/errors.ts) tRPC's
// formatter uses too. A route file is: restRoute(TOKEN_ACCESS.<kind>, handler) with the
// roles declared once in server/core/roles.ts; the handler gets the database handle in its
// context, so route files never reach for the pool.
import type pg from 'pg';
import { getPool } from '../db/pool';
import { authenticateToken } from '../services/tokens';
import { errorReply, errorResponse, replyToResponse, type RestReply } from './errors';
import type { Actor } from '../db/audit';
import { tokenActor } from '../services/tokens';
import { CoreError } from '../core/errors';
import { bodyTooLargeResponse, declaredOverLimit, maxBodyBytes, readBodyWithin } from './request-body';
import { TOKEN_ACCESS, type TokenRole } from '../core/roles';

export type { TokenRole, RestReply };
export { TOKEN_ACCESS };

export interface RestContext {
  req: Request;
  token: { id: string; name: string; role: TokenRole };
  actor: Actor;
  /** The parsed JSON body (POST/PUT/PATCH); a malformed body is a 400, one over
   *  SLUICE_MAX_BODY_BYTES a 413, before the handler runs. */
  body: unknown;
  /** The control plane's pool. */
  db: pg.Pool;
}

/** Wraps a handler with token authentication, a role check and error mapping. */
export function restRoute<P>(
  roles: readonly TokenRole[],
  handler: (ctx: RestContext, params: P) => Promise<RestReply | Response>,
) {
  return async (req: Request, route: { params: Promise<P> }): Promise<Response> => {
    const limit = maxBodyBytes();
    // Before the token is even looked up: an oversized body is refused unread.
    if (declaredOverLimit(req, limit) !== null) {
      await req.body?.cancel().catch(() => {});
      return bodyTooLargeResponse(limit);
    }
    const pool = getPool();
    const token = await authenticateToken(pool, req.headers.get('authorization'));
    if (!token) {
      return errorResponse(new CoreError('UNAUTHORIZED', 'a valid API token is required: Authorization: Bearer slc_…'), { 'www-authenticate': 'Bearer' });
    }
    if (!roles.includes(token.role)) {
      return errorResponse(new CoreError('FORBIDDEN', `a ${token.role} token cannot do this; needs one of: ${roles.join(', ')}`));
    }
    let body: unknown = undefined;
    if (req.method !== 'GET' && req.method !== 'HEAD' && req.method !== 'DELETE') {
      const read = await readBodyWithin(req, limit);
      if (!read.ok) return read.response;
      const text = new TextDecoder().decode(read.bytes);
      try {
        body = text === '' ? undefined : JSON.parse(text);
      } catch {
        return errorResponse(CoreError.badRequest('the request body is not valid JSON'));
      }
    }
    try {
      const out = await handler({ req, token, actor: tokenActor(token), body, db: pool }, await route.params);
      return out instanceof Response ? out : replyToResponse(out);
    } catch (e) {
      return replyToResponse(errorReply(e, 'rest'));
    }
  };
}
