// Tasks: the list and one task for everyone signed in; operators preview a change
// (the diff shown before apply), save it as a new version, pause/resume and delete.
import { z } from 'zod';
import { CoreError } from '../../../core/errors';
import { taskNameSchema } from '../../../core/task-definition';
import { taskChangeGroupSchema } from '../../../core/config-change-view';
import {
  deleteTask,
  deleteTaskInput,
  pauseTaskInput,
  previewTaskInput,
  previewTaskSave,
  saveTask,
  saveTaskInput,
  setTaskPaused,
} from '../../../services/task-config';
import { userActor } from '../../../services/auth';
import { getTask, listTasks } from '../../../presenters/tasks';
import { previewTaskWhatIf, whatIfInput } from '../../../presenters/task-whatif';
import { getTaskBreaker } from '../../../presenters/task-breaker';
import { resetBreaker } from '../../../services/circuit-breaker';
import { operatorProcedure, router, viewerProcedure } from '../../trpc';

const previewOutput = z.object({ basedOn: z.number().nullable(), changes: z.array(taskChangeGroupSchema) });
const appliedOutput = previewOutput.extend({ version: z.number() });

export const tasksRouter = router({
  list: viewerProcedure.query(({ ctx }) => listTasks(ctx.db)),

  get: viewerProcedure.input(z.strictObject({ name: taskNameSchema })).query(async ({ ctx, input }) => {
    const task = await getTask(ctx.db, input.name);
    if (!task) throw CoreError.notFound(`task "${input.name}"`);
    return task;
  }),

  preview: operatorProcedure
    .input(previewTaskInput)
    .output(previewOutput)
    .mutation(({ ctx, input }) => previewTaskSave(ctx.db, input)),

  /** Replays the task's recorded traffic under today's definition and the proposed one (nothing is written). */
  whatIf: operatorProcedure.input(whatIfInput).mutation(({ ctx, input }) => previewTaskWhatIf(ctx.db, input)),

  save: operatorProcedure
    .input(saveTaskInput)
    .output(appliedOutput)
    .mutation(({ ctx, input }) => saveTask(ctx.db, userActor(ctx.user), input)),

  setPaused: operatorProcedure
    .input(pauseTaskInput)
    .output(appliedOutput)
    .mutation(({ ctx, input }) => setTaskPaused(ctx.db, userActor(ctx.user), input)),

  delete: operatorProcedure
    .input(deleteTaskInput)
    .output(
      appliedOutput.extend({
        drained: z.object({ executions: z.number(), spilled: z.number(), running: z.number() }).nullable(),
      }),
    )
    .mutation(({ ctx, input }) => deleteTask(ctx.db, userActor(ctx.user), input)),

  // ─── Circuit breaker (issue 23) ───
  breaker: viewerProcedure.input(z.strictObject({ name: taskNameSchema })).query(({ ctx, input }) => getTaskBreaker(ctx.db, input.name)),

  resetBreaker: operatorProcedure
    .input(z.strictObject({ name: taskNameSchema }))
    .output(z.object({ from: z.enum(['closed', 'open', 'half-open']) }))
    .mutation(({ ctx, input }) => resetBreaker(ctx.db, userActor(ctx.user), input.name)),
});
