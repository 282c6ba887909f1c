// Charts and drill-down: read-only, for every signed-in role.
import { getOverview, overviewInput } from '../../../presenters/overview';
import { getPartitionHeadKeys, getTaskCharts, getTaskPartitions, partitionKeysInput, taskChartsInput, taskNameInput } from '../../../presenters/task-metrics';
import { z } from 'zod';
import { readReplicaLag } from '../../../db/read-replica-lag';
import { router, viewerProcedure } from '../../trpc';

export const metricsRouter = router({
  // Cards and charts from the read replica when there is one; liveness from the primary.
  overview: viewerProcedure.input(overviewInput).query(({ ctx, input }) => getOverview(ctx.db, input, new Date(), ctx.readDb)),
  taskCharts: viewerProcedure.input(taskChartsInput).query(({ ctx, input }) => getTaskCharts(ctx.readDb, input)),
  /** The read replica's lag (null without DATABASE_REPLICA_URL), for the console's notice. */
  replicaLag: viewerProcedure.query(({ ctx }) => (ctx.readDb === ctx.db ? null : readReplicaLag(ctx.db, ctx.readDb))),
  taskPartitions: viewerProcedure.input(z.strictObject({ task: taskNameInput })).query(({ ctx, input }) => getTaskPartitions(ctx.db, input.task)),
  partitionKeys: viewerProcedure.input(partitionKeysInput).query(({ ctx, input }) => getPartitionHeadKeys(ctx.db, input)),
});
