// Coordinators: every member, its partitions and config version, the rollout of the
// latest version (everyone signed in); operators ask a coordinator to drain.
import { z } from 'zod';
import { drainCoordinatorInput, requestCoordinatorDrain } from '../../../services/coordinator-drain';
import { userActor } from '../../../services/auth';
import { listCoordinators } from '../../../presenters/coordinators';
import { operatorProcedure, router, viewerProcedure } from '../../trpc';

export const coordinatorsRouter = router({
  list: viewerProcedure.query(({ ctx }) => listCoordinators(ctx.db)),

  drain: operatorProcedure
    .input(drainCoordinatorInput)
    .output(z.object({ id: z.string(), name: z.string(), releasedPartitions: z.number() }))
    .mutation(({ ctx, input }) => requestCoordinatorDrain(ctx.db, userActor(ctx.user), input)),
});
