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
// The work itself is done by services/dlq-replay-runner.ts (a control-plane service, or the
// CLI waiting on its own job), through the engine's enqueue.
import { z } from 'zod';
import { inputText } from '../core/input-text';
import type pg from 'pg';
import { CoreError } from '../core/errors';
import { recordAudit, type Actor } from '../db/audit';
import { withTransaction } from '../db/pool';
import { freezeReplaySet, insertReplayJob, replayJobIdByRequest, type ReplayScope } from '../db/create-replay-job';
import { getPurgePreview, markPreviewApplied, type PurgePreviewRow } from '../db/purge-frozen-set';
import type { DlqFilter } from '../core/dlq-filter';
import { freezeDeadLetterSet, type PurgePreview } from './dlq-purge';
import { getReplayJob, setReplayJobState, type ReplayJobRow } from '../db/replay-job-lease';
import { dlqScopeInput, scopeKind, type DlqScopeInput } from './dlq-scope';
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
export const replayInput = z.strictObject({ scope: dlqScopeInput, ...replayOptions });
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

export async function createReplayJob(pool: pg.Pool, actor: Actor, input: ReplayInput, opts: { dryRun?: boolean } = {}): Promise<ReplayJobCreated> {
  const v = parseInput(replayInput, input);
  return insertJob(pool, actor, v, scopeKind(v.scope), null, opts.dryRun === true);
}

/** Step 1 of the console's replay: freeze the dead letters not yet replayed (audited `dlq.replay.preview`). */
export function previewReplay(pool: pg.Pool, actor: Actor, input: DlqScopeInput): Promise<PurgePreview> {
  return freezeDeadLetterSet(pool, actor, input, 'replay');
}

/** Step 2: a job of exactly the preview's ids; the preview can be used once, before it expires. */
export async function replayPreview(pool: pg.Pool, actor: Actor, input: ReplayPreviewInput): Promise<ReplayJobCreated> {
  const v = parseInput(replayPreviewInput, input);
  return insertJob(pool, actor, v, null, v.previewId, false);
}

type ReplayOptions = { resetAttempts: boolean; ratePerSecond?: number | null; requestId?: string };

async function insertJob(
  pool: pg.Pool,
  actor: Actor,
  v: ReplayOptions,
  given: ReplayScope | null,
  previewId: string | null,
  dryRun: boolean,
): Promise<ReplayJobCreated> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    let scope = given;
    let preview: PurgePreviewRow | null = null;
    if (previewId !== null) {
      preview = await getPurgePreview(client, previewId, { lock: true });
      if (!preview || preview.purpose !== 'replay') throw CoreError.notFound('replay preview');
      scope = preview.scope === 'ids' ? { kind: 'ids', ids: (preview.filter as { ids: number[] }).ids } : { kind: 'filter', filter: preview.filter as DlqFilter };
    }
    const jobId = await insertReplayJob(client, {
      requestId: dryRun ? null : (v.requestId ?? null),
      scope: scope!,
      resetAttempts: v.resetAttempts,
      ratePerS: v.ratePerSecond ?? null,
      actor,
    });
    if (jobId === null) {
      await client.query('ROLLBACK');
      const id = await replayJobIdByRequest(pool, v.requestId!);
      const job = id === null ? null : await getReplayJob(pool, id);
      if (!job) throw new CoreError('CONFLICT', 'A replay with this request id is being created; try again.');
      return { job, total: job.total, alreadyReplayed: 0, byTask: [], existing: true, dryRun: false };
    }
    if (preview?.purgedAt) throw new CoreError('CONFLICT', `This set was already replayed by ${preview.purgedByLabel ?? 'someone'}; preview the replay again.`);
    if (preview?.expired) throw new CoreError('PRECONDITION_FAILED', 'This preview has expired; preview the replay again to freeze a fresh set.');
    const frozen = await freezeReplaySet(client, jobId, scope!, previewId ?? undefined);
    if (dryRun) {
      await client.query('ROLLBACK');
      return { job: null, ...frozen, existing: false, dryRun: true };
    }
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
    await client.query('COMMIT');
    return { job: await getReplayJob(pool, jobId), ...frozen, existing: false, dryRun: false };
  } catch (e) {
    await client.query('ROLLBACK').catch(() => {});
    throw e;
  } finally {
    client.release();
  }
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

export async function controlReplayJob(pool: pg.Pool, actor: Actor, input: z.input<typeof controlReplayInput>): Promise<ReplayJobRow> {
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
