// Operator roles, ordered: each role can do everything the one before it can, API token
// roles, and the signed-in user as pages and components see it. Core, so the UI, the API
// and the services share one declaration. The tRPC procedure builders (server/api/trpc.ts)
// are the only place that checks operator roles; restRoute (server/api/rest.ts) checks
// token roles.
import { z } from 'zod';

export const ROLES = ['viewer', 'operator', 'admin'] as const;
export type Role = (typeof ROLES)[number];
export const roleSchema = z.enum(ROLES, { error: 'must be one of viewer, operator, admin' });

export function roleAtLeast(role: Role, required: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(required);
}

/** What an API token may be used for (REST enqueue, coordinators, read-only access). */
export const TOKEN_ROLES = ['producer', 'coordinator', 'operator', 'viewer'] as const;
export type TokenRole = (typeof TOKEN_ROLES)[number];
export const tokenRoleSchema = z.enum(TOKEN_ROLES, { error: `must be one of ${TOKEN_ROLES.join(', ')}` });

/** Which token roles each kind of REST route accepts: the one declaration the route files
 *  (restRoute(TOKEN_ACCESS.read, …)) and the OpenAPI document both use. */
export const TOKEN_ACCESS = {
  /** Any valid token. */
  any: TOKEN_ROLES,
  /** Enqueue work. */
  enqueue: ['producer', 'operator'],
  /** Read dead letters and replay jobs. */
  read: ['viewer', 'operator'],
  /** Change things: cancel, retry, purge, replay. */
  operate: ['operator'],
} as const satisfies Record<string, readonly TokenRole[]>;
export type TokenAccess = keyof typeof TOKEN_ACCESS;

/** The user a session resolves to (server/services/sessions.ts). */
export interface SessionUser {
  id: string;
  email: string;
  role: Role;
}
