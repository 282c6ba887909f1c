// Works through replay jobs: lease a job, then batch after batch —
//   renew the lease (and see a pause / cancel) → wait for tokens (rate) → read the next
//   pending items in original execution order → enqueue them through the engine's
//   enqueue service (routing, backpressure, stream order and group limits apply as to any
//   other work) → record outcomes, fenced on the lease.
// Idempotency: each replayed dead letter is enqueued with the idempotency key
// `sluice:dlq-replay:<dead letter id>`. Two jobs (two operators, a double click, a runner
// that lost its lease mid-batch) enqueuing the same dead letter get the same execution
// back from enqueue, and only one of them is credited with the replay
// (db/replay-batch.ts), so a dead letter is never enqueued twice.
// Rate: a token bucket (core/token-bucket.ts) over wall time, burst ≈ 0.1 s of work.
// Resumable: progress is in the rows; a restarted runner leases the job again and
// continues with the items still pending.
import type pg from 'pg';
import { isCoreError } from '../core/errors';
import { TokenBucket, replayBurst } from '../core/token-bucket';
import { replayIdempotencyKey } from '../core/replay-key';
import { enqueue, type EnqueueInput } from './enqueue';
import { withTransaction } from '../db/pool';
import {
  nextReplayItems,
  recordReplayBatch,
  releaseParkedExecutions,
  replayTaskConfig,
  type ReplayItemRow,
  type ReplayOutcome,
} from '../db/replay-batch';
import { finishReplayJob, leaseReplayJob, releaseReplayLease, renewReplayLease, type ReplayJobRow } from '../db/replay-job-lease';

export const REPLAY_LEASE_MS = 30_000;
/** Largest enqueue call at unlimited rate. */
export const REPLAY_MAX_BATCH = 500;
/** "Keep attempts" replays are enqueued this far in the future, then released with their attempts set. */
const PARK_MS = 60_000;
/** Backpressure (reject) on the task: wait at most this long before trying the batch again. */
const MAX_BACKOFF_MS = 5_000;

export function idempotencyKeyFor(deadLetterId: number): string {
  return replayIdempotencyKey(deadLetterId);
}

export interface RunnerOptions {
  /** Who holds the lease (process id + random suffix). */
  owner: string;
  /** Stop taking new batches after this time (ms since epoch); the job stays runnable. */
  deadline: number;
  /** Only this job (the CLI waiting on its own job). */
  jobId?: number;
  log?: (m: string) => void;
  onProgress?: (job: { id: number; replayed: number; skipped: number; failed: number; total: number }) => void;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

export interface RunnerSummary {
  jobs: { id: number; outcome: 'completed' | 'paused' | 'cancelled' | 'yielded' | 'lost-lease'; replayed: number; skipped: number; failed: number }[];
}

const defaultSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Runs runnable jobs (oldest first) until none is left or the deadline passes. */
export async function runReplayJobs(pool: pg.Pool, opts: RunnerOptions): Promise<RunnerSummary> {
  const now = opts.now ?? Date.now;
  const summary: RunnerSummary = { jobs: [] };
  while (now() < opts.deadline) {
    const job = await leaseReplayJob(pool, opts.owner, REPLAY_LEASE_MS, opts.jobId);
    if (!job) break;
    const r = await runLeasedJob(pool, job, opts);
    summary.jobs.push(r);
    if (r.outcome === 'yielded' || r.outcome === 'lost-lease') break;
  }
  return summary;
}

async function runLeasedJob(pool: pg.Pool, job: ReplayJobRow, opts: RunnerOptions): Promise<RunnerSummary['jobs'][number]> {
  const now = opts.now ?? Date.now;
  const sleep = opts.sleep ?? defaultSleep;
  const progress = { id: job.id, replayed: job.replayed, skipped: job.skipped, failed: job.failed, total: job.total };
  const done = (outcome: RunnerSummary['jobs'][number]['outcome']) => ({ id: job.id, outcome, replayed: progress.replayed, skipped: progress.skipped, failed: progress.failed });
  const bucket = job.ratePerS ? new TokenBucket(job.ratePerS, replayBurst(job.ratePerS, REPLAY_MAX_BATCH), now()) : null;
  try {
    for (;;) {
      if (now() >= opts.deadline) {
        await releaseReplayLease(pool, job.id, opts.owner);
        return done('yielded');
      }
      const state = await renewReplayLease(pool, job.id, opts.owner, REPLAY_LEASE_MS);
      if (state === null) return done('lost-lease');
      if (state === 'paused' || state === 'cancelled') {
        await releaseReplayLease(pool, job.id, opts.owner);
        return done(state);
      }
      let want = REPLAY_MAX_BATCH;
      if (bucket) {
        want = bucket.burst;
        const wait = bucket.msUntil(want, now());
        if (wait > 0) {
          await sleep(Math.min(wait, Math.max(0, opts.deadline - now())));
          if (now() >= opts.deadline && bucket.available(now()) < want) continue;
        }
        want = bucket.take(want, now());
        if (want === 0) continue;
      }
      const items = await nextReplayItems(pool, job.id, want);
      if (bucket && items.length < want) bucket.giveBack(want - items.length);
      if (items.length === 0) {
        await finishReplayJob(pool, job.id, opts.owner, 'completed', null);
        return done('completed');
      }
      const batch = await replayBatch(pool, job, items, opts.log);
      if (batch.retryAfterMs !== null) {
        if (bucket) bucket.giveBack(items.length - batch.outcomes.length);
        opts.log?.(`[dlq-replay] job ${job.id}: task over its backpressure limit, retrying in ${batch.retryAfterMs} ms`);
        await sleep(Math.min(batch.retryAfterMs, MAX_BACKOFF_MS, Math.max(0, opts.deadline - now())));
      }
      if (batch.outcomes.length === 0) continue;
      const recorded = await withTransaction(pool, (c) => recordReplayBatch(c, job.id, opts.owner, batch.outcomes));
      if (recorded === null) return done('lost-lease');
      progress.replayed += recorded.replayed;
      progress.skipped += recorded.skipped;
      progress.failed += recorded.failed;
      opts.onProgress?.({ ...progress });
    }
  } catch (e) {
    // An unexpected error (database down…): let the lease lapse so another runner, or the
    // next tick, resumes; the job keeps its progress.
    opts.log?.(`[dlq-replay] job ${job.id} stopped: ${e instanceof Error ? e.message : String(e)}`);
    await releaseReplayLease(pool, job.id, opts.owner).catch(() => {});
    throw e;
  }
}

interface BatchResult {
  outcomes: ReplayOutcome[];
  /** set when the task rejected (backpressure): the items without an outcome stay pending */
  retryAfterMs: number | null;
}

/** Enqueues one batch, per task in item order; returns the outcome of each item it settled. */
async function replayBatch(pool: pg.Pool, job: ReplayJobRow, items: ReplayItemRow[], log?: (m: string) => void): Promise<BatchResult> {
  const outcomes: ReplayOutcome[] = [];
  const live: ReplayItemRow[] = [];
  for (const it of items) {
    if (it.gone) outcomes.push({ deadLetterId: it.deadLetterId, kind: 'skipped', executionId: null, error: 'the dead letter no longer exists (purged or trimmed)' });
    else if (it.replayExecutionId !== null) {
      outcomes.push({ deadLetterId: it.deadLetterId, kind: 'skipped', executionId: it.replayExecutionId, error: `already replayed as execution ${it.replayExecutionId}` });
    } else live.push(it);
  }
  if (live.length === 0) return { outcomes, retryAfterMs: null };
  const tasks = await replayTaskConfig(pool, live.map((i) => i.task!));
  // Consecutive runs of one task keep the global seq order within each task's calls.
  const byTask = new Map<string, ReplayItemRow[]>();
  for (const it of live) {
    const list = byTask.get(it.task!) ?? [];
    list.push(it);
    byTask.set(it.task!, list);
  }
  for (const [task, list] of byTask) {
    const def = tasks.get(task);
    if (!def || !def.active) {
      for (const it of list) outcomes.push({ deadLetterId: it.deadLetterId, kind: 'failed', error: `task "${task}" is not in the current configuration` });
      continue;
    }
    const inputs: EnqueueInput[] = list.map((it) => {
      const groups = Object.fromEntries(Object.entries(it.groups ?? {}).filter(([g]) => def.groups.has(g)));
      return {
        payload: it.payload,
        groups,
        ...(it.streamKey !== null && def.streams ? { streamKey: it.streamKey } : {}),
        idempotencyKey: idempotencyKeyFor(it.deadLetterId),
        ...(job.resetAttempts ? {} : { delayMs: PARK_MS }),
      };
    });
    const r = await enqueueIsolating(pool, task, inputs);
    if (r.retryAfterMs !== null) {
      return { outcomes, retryAfterMs: r.retryAfterMs };
    }
    const parked: { id: number; attempts: number }[] = [];
    list.forEach((it, k) => {
      const res = r.results[k]!;
      if ('error' in res) outcomes.push({ deadLetterId: it.deadLetterId, kind: 'failed', error: res.error });
      else if (res.id === null) outcomes.push({ deadLetterId: it.deadLetterId, kind: 'failed', error: 'shed by the task\'s backpressure policy' });
      else {
        outcomes.push({ deadLetterId: it.deadLetterId, kind: 'enqueued', executionId: res.id });
        if (!job.resetAttempts) parked.push({ id: res.id, attempts: Math.max(0, Math.min(it.attempts ?? 0, def.maxAttempts - 1)) });
      }
    });
    if (parked.length > 0) {
      await releaseParkedExecutions(pool, task, parked.map((p) => p.id), parked.map((p) => p.attempts));
    }
    log?.(`[dlq-replay] job ${job.id}: enqueued ${list.length} of task ${task}`);
  }
  return { outcomes, retryAfterMs: null };
}

type EnqueueItemResult = { id: number | null } | { error: string };

/**
 * Enqueues a batch; when the batch is refused for one bad item (BAD_REQUEST, e.g. a
 * payload no longer valid for a changed routing key path), enqueues item by item so
 * only the bad ones fail. A backpressure reject returns retryAfterMs instead.
 */
async function enqueueIsolating(pool: pg.Pool, task: string, inputs: EnqueueInput[]): Promise<{ results: EnqueueItemResult[]; retryAfterMs: number | null }> {
  try {
    const r = await enqueue(pool, task, inputs);
    return { results: r.executions.map((e) => ({ id: e.id })), retryAfterMs: null };
  } catch (e) {
    if (isCoreError(e) && e.code === 'TOO_MANY_REQUESTS') return { results: [], retryAfterMs: e.retryAfterMs ?? 1000 };
    if (isCoreError(e) && e.code === 'NOT_FOUND') return { results: inputs.map(() => ({ error: e.message })), retryAfterMs: null };
    // A bad input (invalid, or over a size limit) fails alone: split the batch to find it.
    if (!(isCoreError(e) && (e.code === 'BAD_REQUEST' || e.code === 'PAYLOAD_TOO_LARGE')) || inputs.length === 1) {
      if (isCoreError(e)) return { results: inputs.map(() => ({ error: e.message })), retryAfterMs: null };
      throw e;
    }
  }
  const results: EnqueueItemResult[] = [];
  for (const input of inputs) {
    const r = await enqueueIsolating(pool, task, [input]);
    if (r.retryAfterMs !== null) return { results, retryAfterMs: r.retryAfterMs };
    results.push(r.results[0]!);
  }
  return { results, retryAfterMs: null };
}
