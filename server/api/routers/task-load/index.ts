// Task load by key and by stream: the per-task Keys and Streams views, for everyone
// signed in. Reads only; each procedure is one presenter call.
import { taskKeysInput, taskStreamsInput } from '../../../core/key-views';
import { getTaskKeys } from '../../../presenters/task-keys';
import { getTaskStreams } from '../../../presenters/task-streams';
import { router, viewerProcedure } from '../../trpc';

export const taskLoadRouter = router({
  keys: viewerProcedure.input(taskKeysInput).query(({ ctx, input }) => getTaskKeys(ctx.db, input)),
  streams: viewerProcedure.input(taskStreamsInput).query(({ ctx, input }) => getTaskStreams(ctx.db, input)),
});
