// Replay dead letters as a tracked background job (not an inline loop that holds a lock
// on the table, as Oban's retry-all did):
//   previewReplay +
//   replayPreview    — the console's two steps: freeze the set and show its count, then
//                      make the job of exactly those ids (like the purge), so the count
//                      confirmed is the count replayed.
//   createReplayJob  — one step (REST, CLI): freezes the set (a selection, or everything matching a filter, minus
//                      what is already replayed) into a job with its options (reset attempts,
//                      rate), audited with the filter and counts in the same transaction.
//                      A request id makes the call idempotent (double click, retried POST).
//   controlReplayJob — pause / resume / cancel, audited.
// The work itself is done by services/dead-letter-replay-runner.ts (a control-plane service, or the
// CLI waiting on its own job), through the engine's enqueue.
import { z } from 'zod';
import { inputText } from '../core/input-text';
import { CoreError } from '../core/errors';
import { recordAudit, type Actor } from '../db/audit';
import { withTransaction, type Db } from '../db/pool';
import { freezeReplaySet, insertReplayJob, replayJobIdByRequest, type ReplayScope } from '../db/create-replay-job';
import { getPurgePreview, markPreviewApplied, type PurgePreviewRow } from '../db/purge-frozen-set';
import type { DeadLetterFilter } from '../core/dead-letter-filter';
import { freezeDeadLetterSet, type PurgePreview } from './dead-letter-purge';
import { getReplayJob, setReplayJobState, type ReplayJobRow } from '../db/replay-job-lease';
import { deadLetterScopeInput, scopeKind, type DeadLetterScopeInput } from './dead-letter-scope';
import { parseInput } from '../core/validate-input';
import { MAX_RATE_PER_S } from '../core/replay-rate';

export { MAX_RATE_PER_S };

const replayOptions = {
  /** true: the replayed execution gets the task's full retry budget; false: only what is left (at least one attempt). */
  resetAttempts: z.boolean().default(true),
  /** Executions per second; null or absent = as fast as enqueue goes. */
  ratePerSecond: z
    .number({ error: 'must be a number of executions per second' })
    .positive('must be above 0')
    .max(MAX_RATE_PER_S, `must be at most ${MAX_RATE_PER_S}`)
    .nullable()
    .optional(),
  /** The client's key for this request (a UUID per dialog opening): repeats return the same job. */
  requestId: inputText.trim().min(8, 'must be at least 8 characters').max(100, 'is too long').optional(),
};

/** One step: the set is frozen when the job is created (REST, CLI). */
export const replayInput = z.strictObject({ scope: deadLetterScopeInput, ...replayOptions });
export type ReplayInput = z.input<typeof replayInput>;

/**
 * The console's two steps, like the purge: previewReplay freezes the dead letters not yet
 * replayed and shows their count; replayPreview makes the job from exactly those ids, so
 * what arrives between the preview and the click is not replayed.
 */
export const replayPreviewInput = z.strictObject({ previewId: z.uuid('must be a preview id'), ...replayOptions });
export type ReplayPreviewInput = z.input<typeof replayPreviewInput>;

export interface ReplayJobCreated {
  job: ReplayJobRow | null;
  /** dead letters frozen into the job */
  total: number;
  /** matched but already replayed, left out */
  alreadyReplayed: number;
  byTask: { task: string; count: number }[];
  /** true when the request id matched an existing job (nothing new was created) */
  existing: boolean;
  dryRun: boolean;
}

export async function createReplayJob(db: Db, actor: Actor, input: ReplayInput, opts: { dryRun?: boolean } = {}): Promise<ReplayJobCreated> {
  const v = parseInput(replayInput, input);
  return insertJob(db, actor, v, scopeKind(v.scope), null, opts.dryRun === true);
}

/** Step 1 of the console's replay: freeze the dead letters not yet replayed (audited `dlq.replay.preview`). */
export function previewReplay(db: Db, actor: Actor, input: DeadLetterScopeInput): Promise<PurgePreview> {
  return freezeDeadLetterSet(db, actor, input, 'replay');
}

/** Step 2: a job of exactly the preview's ids; the preview can be used once, before it expires. */
export async function replayPreview(db: Db, actor: Actor, input: ReplayPreviewInput): Promise<ReplayJobCreated> {
  const v = parseInput(replayPreviewInput, input);
  return insertJob(db, actor, v, null, v.previewId, false);
}

type ReplayOptions = { resetAttempts: boolean; ratePerSecond?: number | null; requestId?: string };

async function insertJob(
  db: Db,
  actor: Actor,
  v: ReplayOptions,
  given: ReplayScope | null,
  previewId: string | null,
  dryRun: boolean,
): Promise<ReplayJobCreated> {
  const created = await withTransaction(
    db,
    async (client) => {
      let scope = given;
      let preview: PurgePreviewRow | null = null;
      if (previewId !== null) {
        preview = await getPurgePreview(client, previewId, { lock: true });
        if (!preview || preview.purpose !== 'replay') throw CoreError.notFound('replay preview');
        scope = preview.scope === 'ids' ? { kind: 'ids', ids: (preview.filter as { ids: number[] }).ids } : { kind: 'filter', filter: preview.filter as DeadLetterFilter };
      }
      const jobId = await insertReplayJob(client, {
        requestId: dryRun ? null : (v.requestId ?? null),
        scope: scope!,
        resetAttempts: v.resetAttempts,
        ratePerS: v.ratePerSecond ?? null,
        actor,
      });
      // Another request with this id got there first: nothing was written here.
      if (jobId === null) return null;
      if (preview?.purgedAt) throw new CoreError('CONFLICT', `This set was already replayed by ${preview.purgedByLabel ?? 'someone'}; preview the replay again.`);
      if (preview?.expired) throw new CoreError('PRECONDITION_FAILED', 'This preview has expired; preview the replay again to freeze a fresh set.');
      const frozen = await freezeReplaySet(client, jobId, scope!, previewId ?? undefined);
      if (dryRun) return { jobId, frozen };
      if (frozen.total === 0) {
        throw new CoreError(
          'CONFLICT',
          frozen.alreadyReplayed > 0
            ? `Nothing to replay: all ${frozen.alreadyReplayed} matching dead letter(s) were already replayed.`
            : 'Nothing to replay: no dead letters match.',
        );
      }
      if (preview) await markPreviewApplied(client, preview.id, frozen.total, actor.label);
      await recordAudit(client, actor, {
        action: 'dlq.replay',
        targetType: 'dlq_replay_job',
        targetId: String(jobId),
        after: { total: frozen.total, resetAttempts: v.resetAttempts, ratePerSecond: v.ratePerSecond ?? null },
        meta: {
          scope: scope!.kind,
          filter: scope!.kind === 'filter' ? scope!.filter : { ids: scope!.ids.length > 100 ? `${scope!.ids.length} ids` : scope!.ids },
          ...(preview ? { previewId: preview.id, frozen: preview.total } : {}),
          total: frozen.total,
          alreadyReplayed: frozen.alreadyReplayed,
          byTask: frozen.byTask,
        },
      });
      return { jobId, frozen };
    },
    { rollback: dryRun },
  );
  if (created === null) {
    const id = await replayJobIdByRequest(db, v.requestId!);
    const job = id === null ? null : await getReplayJob(db, id);
    if (!job) throw new CoreError('CONFLICT', 'A replay with this request id is being created; try again.');
    return { job, total: job.total, alreadyReplayed: 0, byTask: [], existing: true, dryRun: false };
  }
  if (dryRun) return { job: null, ...created.frozen, existing: false, dryRun: true };
  return { job: await getReplayJob(db, created.jobId), ...created.frozen, existing: false, dryRun: false };
}

export const REPLAY_ACTIONS = ['pause', 'resume', 'cancel'] as const;
export const controlReplayInput = z.strictObject({
  jobId: z.number().int().positive('must be a replay job id'),
  action: z.enum(REPLAY_ACTIONS, { error: 'must be pause, resume or cancel' }),
});

const TRANSITIONS: Record<(typeof REPLAY_ACTIONS)[number], { from: ReplayJobRow['state'][]; to: ReplayJobRow['state']; finished: boolean }> = {
  pause: { from: ['pending', 'running'], to: 'paused', finished: false },
  resume: { from: ['paused'], to: 'pending', finished: false },
  cancel: { from: ['pending', 'running', 'paused'], to: 'cancelled', finished: true },
};

export async function controlReplayJob(db: Db, actor: Actor, input: z.input<typeof controlReplayInput>): Promise<ReplayJobRow> {
  const v = parseInput(controlReplayInput, input);
  return withTransaction(db, async (c) => {
    const job = await getReplayJob(c, v.jobId, { lock: true });
    if (!job) throw CoreError.notFound(`replay job ${v.jobId}`);
    const t = TRANSITIONS[v.action];
    if (!t.from.includes(job.state)) {
      throw new CoreError('CONFLICT', `Replay job ${job.id} is ${job.state}; it cannot be ${v.action === 'cancel' ? 'cancelled' : `${v.action}d`}.`);
    }
    const after = await setReplayJobState(c, job.id, t.to, t.finished);
    await recordAudit(c, actor, {
      action: `dlq.replay.${v.action}`,
      targetType: 'dlq_replay_job',
      targetId: String(job.id),
      before: { state: job.state },
      after: { state: after.state },
      meta: { total: job.total, replayed: job.replayed, skipped: job.skipped, failed: job.failed },
    });
    return after;
  });
}
