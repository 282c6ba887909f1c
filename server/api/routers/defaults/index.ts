// Fleet defaults: everyone signed in reads them (the task editor shows inherited values);
// admins preview and save an edit as a new config version.
import { z } from 'zod';
import { taskChangeGroupSchema } from '../../../core/config-change-view';
import { previewDefaultsInput, previewFleetDefaults, saveDefaultsInput, saveFleetDefaults } from '../../../services/fleet-defaults';
import { getFleetDefaults } from '../../../presenters/fleet-defaults';
import { userActor } from '../../../services/auth';
import { adminProcedure, router, viewerProcedure } from '../../trpc';

const previewOutput = z.object({
  basedOn: z.number().nullable(),
  defaults: z.array(z.object({ path: z.string(), before: z.unknown(), after: z.unknown() })),
  changes: z.array(taskChangeGroupSchema),
});

export const defaultsRouter = router({
  get: viewerProcedure.query(({ ctx }) => getFleetDefaults(ctx.db)),

  preview: adminProcedure
    .input(previewDefaultsInput)
    .output(previewOutput)
    .mutation(({ ctx, input }) => previewFleetDefaults(ctx.db, input)),

  save: adminProcedure
    .input(saveDefaultsInput)
    .output(previewOutput.extend({ version: z.number() }))
    .mutation(({ ctx, input }) => saveFleetDefaults(ctx.db, userActor(ctx.user), input)),
});
