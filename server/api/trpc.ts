// tRPC setup: the context type, the error formatter (codes from server/api/errors.ts, the
// one CoreError mapping), and one procedure builder per role. Roles are ordered viewer <
// operator < admin; a procedure states the least role it needs by its builder, and no
// handler checks roles itself.
//
// Errors: services throw CoreError (server/core/errors.ts), which knows nothing of
// transport. `mapErrors` turns it into a TRPCError by the one mapping in server/api/errors.ts
// and the formatter puts its field errors — or a zod input error's, field by field — into
// `data.fieldErrors`. Anything else stays INTERNAL_SERVER_ERROR with a generic message, so
// internals never leak.
import { initTRPC, StandardSchemaV1Error, TRPCError } from '@trpc/server';
import superjson from 'superjson';
import { ZodError } from 'zod';
import { isCoreError, issueFieldErrors, summarizeFieldErrors, type FieldError } from '../core/errors';
import { trpcErrorOf } from './errors';
import { roleAtLeast, type Role } from '../core/roles';
import type { Context } from './context';

export type { Context };

/** Field errors of an input-validation failure: a ZodError, or a Standard Schema error. */
function schemaFieldErrors(cause: unknown): FieldError[] | null {
  if (!(cause instanceof ZodError || cause instanceof StandardSchemaV1Error)) return null;
  return issueFieldErrors(cause.issues);
}

const t = initTRPC.context<Context>().create({
  transformer: superjson,
  errorFormatter({ shape, error }) {
    const cause = error.cause;
    const fieldErrors = isCoreError(cause) ? (cause.fieldErrors ?? null) : schemaFieldErrors(cause);
    return {
      ...shape,
      // No stack traces on the wire, in any environment.
      data: {
        code: shape.data.code,
        httpStatus: shape.data.httpStatus,
        path: shape.data.path,
        fieldErrors,
        retryAfterMs: isCoreError(cause) ? (cause.retryAfterMs ?? null) : null,
      },
    };
  },
});

/** CoreError → TRPCError with its code; zod input errors get a readable message. */
const mapErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (result.ok) return result;
  const err = result.error;
  const cause = err.cause;
  if (isCoreError(cause)) throw trpcErrorOf(cause);
  const fieldErrors = err.code === 'BAD_REQUEST' ? schemaFieldErrors(cause) : null;
  if (fieldErrors) throw new TRPCError({ code: 'BAD_REQUEST', message: `Invalid input: ${summarizeFieldErrors(fieldErrors)}`, cause });
  if (err.code === 'INTERNAL_SERVER_ERROR') {
    console.error('[trpc] internal error:', cause ?? err);
    throw new TRPCError({ code: 'INTERNAL_SERVER_ERROR', message: 'Something went wrong on the server; it has been logged.' });
  }
  return result;
});

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

export const publicProcedure = t.procedure.use(mapErrors);

function requireRole(role: Role) {
  return publicProcedure.use(({ ctx, next }) => {
    if (!ctx.user) throw new TRPCError({ code: 'UNAUTHORIZED', message: 'Sign in to continue.' });
    if (!roleAtLeast(ctx.user.role, role)) {
      throw new TRPCError({ code: 'FORBIDDEN', message: `This needs the ${role} role; you are signed in as ${ctx.user.role}.` });
    }
    return next({ ctx: { ...ctx, user: ctx.user } });
  });
}

export const viewerProcedure = requireRole('viewer');
export const operatorProcedure = requireRole('operator');
export const adminProcedure = requireRole('admin');
