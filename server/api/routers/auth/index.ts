// Sign in / sign out / who am I. Sets and clears the HTTP-only session cookie.
import { z } from 'zod';
import { signIn, signInInput, signOut } from '../../../services/auth';
import { SESSION_COOKIE } from '../../../services/sessions';
import { roleSchema } from '../../../core/roles';
import { publicProcedure, router } from '../../trpc';

const sessionUserOutput = z.object({ id: z.string(), email: z.string(), role: roleSchema });

export const authRouter = router({
  me: publicProcedure.output(sessionUserOutput.nullable()).query(({ ctx }) => ctx.user),

  signIn: publicProcedure
    .input(signInInput)
    .output(sessionUserOutput)
    .mutation(async ({ ctx, input }) => {
      const s = await signIn(ctx.db, input, ctx.client, { sessionHours: ctx.sessionHours });
      ctx.cookies.set(SESSION_COOKIE, s.token, { expires: s.expiresAt });
      return s.user;
    }),

  signOut: publicProcedure.output(z.object({ ok: z.literal(true) })).mutation(async ({ ctx }) => {
    await signOut(ctx.db, ctx.cookies.get(SESSION_COOKIE));
    ctx.cookies.delete(SESSION_COOKIE);
    return { ok: true as const };
  }),
});
