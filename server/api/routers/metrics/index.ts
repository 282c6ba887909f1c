// Charts and drill-down: read-only, for every signed-in role.
import { getOverview, overviewInput } from '../../../presenters/overview';
import { getPartitionHeadKeys, getTaskCharts, getTaskPartitions, partitionKeysInput, taskChartsInput, taskNameInput } from '../../../presenters/task-metrics';
import { z } from 'zod';
import { router, viewerProcedure } from '../../trpc';

export const metricsRouter = router({
  overview: viewerProcedure.input(overviewInput).query(({ ctx, input }) => getOverview(ctx.db, input)),
  taskCharts: viewerProcedure.input(taskChartsInput).query(({ ctx, input }) => getTaskCharts(ctx.db, input)),
  taskPartitions: viewerProcedure.input(z.strictObject({ task: taskNameInput })).query(({ ctx, input }) => getTaskPartitions(ctx.db, input.task)),
  partitionKeys: viewerProcedure.input(partitionKeysInput).query(({ ctx, input }) => getPartitionHeadKeys(ctx.db, input)),
});
