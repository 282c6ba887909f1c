// Dead letters: viewers browse (list, fingerprint groups, detail, replay progress);
// operators replay, control replays and purge. Each procedure is one call into a
// presenter or a service; the services audit.
import { z } from 'zod';
import {
  deadLetterDetail,
  deadLetterIdInput,
  deadLetterListInput,
  deadLetterTaskNames,
  fingerprintGroupsInput,
  listDeadLetterPage,
  listFingerprintGroups,
  recentReplayJobs,
  replayJob,
  replayJobIdInput,
  replayJobListInput,
  replayExecutions,
  replayExecutionsInput,
} from '../../../presenters/dead-letters';
import { controlReplayInput, controlReplayJob, createReplayJob, previewReplay, replayInput, replayPreview, replayPreviewInput } from '../../../services/dead-letter-replay';
import { previewPurge, purgeDeadLetters, purgeInput, purgePreviewStatus } from '../../../services/dead-letter-purge';
import { deadLetterScopeInput } from '../../../services/dead-letter-scope';
import { userActor } from '../../../services/auth';
import { operatorProcedure, router, viewerProcedure } from '../../trpc';

export const deadLettersRouter = router({
  // Lists from the read replica when there is one; details, previews and jobs from the primary.
  list: viewerProcedure.input(deadLetterListInput).query(({ ctx, input }) => listDeadLetterPage(ctx.readDb, input)),
  fingerprints: viewerProcedure.input(fingerprintGroupsInput).query(({ ctx, input }) => listFingerprintGroups(ctx.readDb, input)),
  get: viewerProcedure.input(deadLetterIdInput).query(({ ctx, input }) => deadLetterDetail(ctx.db, input)),
  tasks: viewerProcedure.query(({ ctx }) => deadLetterTaskNames(ctx.db)),

  replayJobs: viewerProcedure.input(replayJobListInput).query(({ ctx, input }) => recentReplayJobs(ctx.db, input)),
  replayExecutions: viewerProcedure.input(replayExecutionsInput).query(({ ctx, input }) => replayExecutions(ctx.db, input)),
  replayJob: viewerProcedure.input(replayJobIdInput).query(({ ctx, input }) => replayJob(ctx.db, input)),

  replay: operatorProcedure
    .input(replayInput.extend({ dryRun: z.boolean().default(false) }))
    .mutation(({ ctx, input: { dryRun, ...input } }) => createReplayJob(ctx.db, userActor(ctx.user), input, { dryRun })),
  previewReplay: operatorProcedure
    .input(z.strictObject({ scope: deadLetterScopeInput }))
    .mutation(({ ctx, input }) => previewReplay(ctx.db, userActor(ctx.user), input.scope)),
  replayPreview: operatorProcedure.input(replayPreviewInput).mutation(({ ctx, input }) => replayPreview(ctx.db, userActor(ctx.user), input)),
  controlReplay: operatorProcedure.input(controlReplayInput).mutation(({ ctx, input }) => controlReplayJob(ctx.db, userActor(ctx.user), input)),

  previewPurge: operatorProcedure
    .input(z.strictObject({ scope: deadLetterScopeInput }))
    .mutation(({ ctx, input }) => previewPurge(ctx.db, userActor(ctx.user), input.scope)),
  purgePreview: operatorProcedure.input(z.strictObject({ id: z.uuid('must be a preview id') })).query(({ ctx, input }) => purgePreviewStatus(ctx.db, input.id)),
  purge: operatorProcedure.input(purgeInput).mutation(({ ctx, input }) => purgeDeadLetters(ctx.db, userActor(ctx.user), input)),
});
