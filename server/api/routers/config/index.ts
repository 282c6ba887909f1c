// Config history: versions with their diffs (everyone signed in), rollback with a
// preview of what it changes (operators). The YAML download is a route handler
// (app/api/config/export) because it answers with a file, not JSON.
import { z } from 'zod';
import { taskChangeGroupSchema } from '../../../core/config-change-view';
import { previewRollback, previewRollbackInput, rollbackConfig, rollbackInput } from '../../../services/task-config';
import { userActor } from '../../../services/auth';
import { exportConfigYaml, getConfigVersionView, historyInput, listConfigHistory } from '../../../presenters/config-history';
import { abortGuard, guardVersionInput, promoteGuard } from '../../../services/guarded-rollout';
import { guardsInput, listGuardViews } from '../../../presenters/config-guards';
import { operatorProcedure, router, viewerProcedure } from '../../trpc';

const version = z.number().int().min(1);
const guardOutcome = z.object({ version: z.number(), status: z.string(), rollbackVersion: z.number().nullable(), reason: z.string().nullable() });
const previewOutput = z.object({ basedOn: z.number().nullable(), changes: z.array(taskChangeGroupSchema) });

export const configRouter = router({
  history: viewerProcedure.input(historyInput).query(({ ctx, input }) => listConfigHistory(ctx.db, input)),

  version: viewerProcedure.input(z.strictObject({ version })).query(({ ctx, input }) => getConfigVersionView(ctx.db, input.version)),

  /** The YAML file `sluice config apply` takes (served by app/api/config/export). */
  export: viewerProcedure
    .input(z.strictObject({ version: version.optional() }))
    .output(z.object({ version: z.number().nullable(), filename: z.string(), yaml: z.string() }))
    .query(({ ctx, input }) => exportConfigYaml(ctx.db, input.version)),

  previewRollback: operatorProcedure
    .input(previewRollbackInput)
    .output(previewOutput)
    .mutation(({ ctx, input }) => previewRollback(ctx.db, input)),

  rollback: operatorProcedure
    .input(rollbackInput)
    .output(previewOutput.extend({ version: z.number() }))
    .mutation(({ ctx, input }) => rollbackConfig(ctx.db, userActor(ctx.user), input)),

  // ─── Guarded rollout (issue 20) ───
  /** Guards newest first (of a task, or only those baking), with the server's clock for the countdown. */
  guards: viewerProcedure.input(guardsInput).query(({ ctx, input }) => listGuardViews(ctx.db, input)),

  /** Ends a bake early, keeping the version. */
  promoteGuard: operatorProcedure
    .input(guardVersionInput)
    .output(guardOutcome)
    .mutation(({ ctx, input }) => promoteGuard(ctx.db, userActor(ctx.user), input)),

  /** Ends a bake now and rolls the guarded tasks back to the version before. */
  abortGuard: operatorProcedure
    .input(guardVersionInput)
    .output(guardOutcome)
    .mutation(({ ctx, input }) => abortGuard(ctx.db, userActor(ctx.user), input)),
});
