// Settings → API tokens: listing shows prefixes only; admins create (plaintext shown
// once) and revoke.
import { z } from 'zod';
import { createToken, createTokenInput, revokeToken, revokeTokenInput } from '../../../services/tokens';
import { userActor } from '../../../services/auth';
import { listTokens } from '../../../presenters/tokens';
import { adminProcedure, router, viewerProcedure } from '../../trpc';

export const tokensRouter = router({
  list: viewerProcedure.query(({ ctx }) => listTokens(ctx.db)),

  create: adminProcedure
    .input(createTokenInput)
    .output(z.object({ token: z.string(), id: z.string(), name: z.string() }))
    .mutation(async ({ ctx, input }) => {
      const { token, record } = await createToken(ctx.db, userActor(ctx.user), input);
      return { token, id: record.id, name: record.name };
    }),

  revoke: adminProcedure
    .input(revokeTokenInput)
    .output(z.object({ id: z.string(), revokedAt: z.date().nullable() }))
    .mutation(({ ctx, input }) => revokeToken(ctx.db, userActor(ctx.user), input)),
});
