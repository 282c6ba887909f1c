// Settings → Users: everyone signed in can see the list; only admins change it.
import { z } from 'zod';
import { createUser, createUserInput, resetPassword, resetPasswordInput, updateUser, updateUserInput } from '../../../services/users';
import { userActor } from '../../../services/auth';
import { roleSchema } from '../../../core/roles';
import { listUsers } from '../../../presenters/users';
import { adminProcedure, router, viewerProcedure } from '../../trpc';

const userOutput = z.object({ id: z.string(), email: z.string(), role: roleSchema, active: z.boolean() });

export const usersRouter = router({
  list: viewerProcedure.query(({ ctx }) => listUsers(ctx.db)),

  create: adminProcedure
    .input(createUserInput)
    .output(z.object({ user: userOutput, generatedPassword: z.string().optional() }))
    .mutation(({ ctx, input }) => createUser(ctx.db, userActor(ctx.user), input)),

  update: adminProcedure
    .input(updateUserInput)
    .output(userOutput)
    .mutation(({ ctx, input }) => updateUser(ctx.db, userActor(ctx.user), input)),

  resetPassword: adminProcedure
    .input(resetPasswordInput)
    .output(z.object({ user: userOutput, generatedPassword: z.string().optional() }))
    .mutation(({ ctx, input }) => resetPassword(ctx.db, userActor(ctx.user), input)),
});
