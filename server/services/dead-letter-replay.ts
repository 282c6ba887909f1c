// Replay dead letters as a tracked background job (not an inline loop that holds a lock
// on the table, as Oban's retry-all did):
//   createReplayJob  — freezes the set (a selection, or everything matching a filter, minus
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
import { freezeReplaySet, insertReplayJob, replayJobIdByRequest } from '../db/create-replay-job';
import { getReplayJob, setReplayJobState, type ReplayJobRow } from '../db/replay-job-lease';
import { deadLetterScopeInput, scopeKind } from './dead-letter-scope';
import { parseInput } from '../core/validate-input';

export const MAX_RATE_PER_S = 100_000;

export const replayInput = z.strictObject({
  scope: deadLetterScopeInput,
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
});
export type ReplayInput = z.input<typeof replayInput>;

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
  const scope = scopeKind(v.scope);
  const dryRun = opts.dryRun === true;
  const created = await withTransaction(
    db,
    async (client) => {
      const jobId = await insertReplayJob(client, {
        requestId: dryRun ? null : (v.requestId ?? null),
        scope,
        resetAttempts: v.resetAttempts,
        ratePerS: v.ratePerSecond ?? null,
        actor,
      });
      // Another request with this id got there first: nothing was written here.
      if (jobId === null) return null;
      const frozen = await freezeReplaySet(client, jobId, scope);
      if (dryRun) return { jobId, frozen };
      if (frozen.total === 0) {
        throw new CoreError(
          'CONFLICT',
          frozen.alreadyReplayed > 0
            ? `Nothing to replay: all ${frozen.alreadyReplayed} matching dead letter(s) were already replayed.`
            : 'Nothing to replay: no dead letters match.',
        );
      }
      await recordAudit(client, actor, {
        action: 'dlq.replay',
        targetType: 'dlq_replay_job',
        targetId: String(jobId),
        after: { total: frozen.total, resetAttempts: v.resetAttempts, ratePerSecond: v.ratePerSecond ?? null },
        meta: {
          scope: scope.kind,
          filter: scope.kind === 'filter' ? scope.filter : { ids: scope.ids.length > 100 ? `${scope.ids.length} ids` : scope.ids },
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

export async function controlReplayJob(pool: Db, actor: Actor, input: z.input<typeof controlReplayInput>): Promise<ReplayJobRow> {
  const v = parseInput(controlReplayInput, input);
  return withTransaction(pool, async (c) => {
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
