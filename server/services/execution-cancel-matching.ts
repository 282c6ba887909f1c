// Cancel everything matching a filter, safely, in two steps (the DLQ purge's shape,
// services/dead-letter-purge.ts):
//   preview — freeze the exact ids of one task's executions matching the filter now and
//             report their count per state; nothing changes;
//   cancel  — the operator types "cancel <count>"; only the frozen ids are canceled
//             (db/cancel-frozen-set.ts), once, before the preview expires; audited in the
//             same transaction with the filter and the counts. Executions enqueued after
//             the preview are never touched.
// A dry run computes the preview inside a transaction that is rolled back.
import { z } from 'zod';
import { withTransaction, type Db } from '../db/pool';
import { CoreError } from '../core/errors';
import { confirmationMatches } from '../core/dead-letter-filter';
import { cancelConfirmationPhrase, cancelFilterQueries, executionCancelFilterSchema, type ExecutionCancelFilterInput } from '../core/execution-cancel-filter';
import { recordAudit, type Actor } from '../db/audit';
import { freezeCancelSet, type FrozenCancelSet } from '../db/freeze-cancel-set';
import { cancelFrozenSet, getCancelPreview, type CancelPreviewRow } from '../db/cancel-frozen-set';
import { parseInput } from '../core/validate-input';

/** How long a preview stays usable. */
export const CANCEL_PREVIEW_TTL_MINUTES = 30;

export const cancelMatchingInput = z
  .object({
    previewId: z.uuid('must be a preview id'),
    confirm: z.string().max(100, 'is too long'),
    /** Optional: the filter the caller previewed; when given it must be the preview's. */
    filter: executionCancelFilterSchema.optional(),
  })
  .strict();
export type CancelMatchingInput = z.input<typeof cancelMatchingInput>;

export const cancelPreviewInput = z.object({ filter: executionCancelFilterSchema, dryRun: z.boolean().default(false) }).strict();

export interface CancelPreview extends FrozenCancelSet {
  /** What the operator must type to cancel this set. */
  confirmation: string;
}

export interface CancelMatchingResult {
  previewId: string;
  task: string;
  frozen: number;
  /** Canceled now (were queued, scheduled, blocked or spilled). */
  canceled: number;
  /** Running: cancel requested, their coordinators abort and record them. */
  requested: number;
  /** Frozen ids that finished (or started running, when the filter did not name running) meanwhile. */
  skipped: number;
  byPriorState: { state: string; count: number }[];
}

/** Freezes the set and returns its count; `dryRun` reports the same figures and stores nothing. */
export async function previewCancelMatching(
  pool: Db,
  actor: Actor,
  filter: ExecutionCancelFilterInput,
  opts: { dryRun?: boolean } = {},
): Promise<CancelPreview> {
  const f = parseInput(executionCancelFilterSchema, filter);
  const frozen = await withTransaction(pool, (c) => freezeCancelSet(c, actor, f, cancelFilterQueries(f), CANCEL_PREVIEW_TTL_MINUTES), { rollback: opts.dryRun === true });
  return { ...frozen, confirmation: cancelConfirmationPhrase(frozen.total) };
}

export async function cancelMatching(pool: Db, actor: Actor, input: CancelMatchingInput): Promise<CancelMatchingResult> {
  const v = parseInput(cancelMatchingInput, input);
  return withTransaction(pool, async (c) => {
    const preview = await getCancelPreview(c, v.previewId, { lock: true });
    if (!preview) throw CoreError.notFound('cancel preview');
    if (preview.appliedAt) {
      throw new CoreError('CONFLICT', `This set was already canceled by ${preview.appliedByLabel ?? 'someone'} (${preview.appliedCount ?? 0} executions).`);
    }
    if (preview.expired) {
      throw new CoreError('PRECONDITION_FAILED', 'This preview has expired; preview again to freeze a fresh set.');
    }
    const phrase = cancelConfirmationPhrase(preview.total);
    if (!confirmationMatches(v.confirm, preview.total, phrase)) {
      throw CoreError.badRequest(`Type "${phrase}" to confirm.`, [{ path: 'confirm', message: `type "${phrase}" to confirm` }]);
    }
    const filter = executionCancelFilterSchema.parse(preview.filter);
    if (v.filter !== undefined && JSON.stringify(v.filter) !== JSON.stringify(filter)) {
      throw new CoreError('CONFLICT', 'This preview froze a different filter; preview this filter first and confirm that preview.', {
        fieldErrors: [{ path: 'filter', message: 'is not the filter of this preview' }],
      });
    }
    const out = await cancelFrozenSet(c, preview, actor.label, { includeRunning: filter.states.includes('running') });
    const byPrior = new Map<string, number>();
    for (const o of out) byPrior.set(o.prior, (byPrior.get(o.prior) ?? 0) + 1);
    const canceled = out.filter((o) => o.result === 'canceled').length;
    const requested = out.length - canceled;
    const result: CancelMatchingResult = {
      previewId: preview.id,
      task: preview.task,
      frozen: preview.total,
      canceled,
      requested,
      skipped: preview.total - out.length,
      byPriorState: [...byPrior].map(([state, count]) => ({ state, count })).sort((a, b) => b.count - a.count || a.state.localeCompare(b.state)),
    };
    await recordAudit(c, actor, {
      action: 'execution.cancel_matching',
      targetType: 'executions',
      targetId: preview.id,
      before: { frozen: preview.total },
      after: { canceled, requested, skipped: result.skipped },
      meta: { task: preview.task, filter: preview.filter, byPriorState: result.byPriorState, previewBy: preview.createdByLabel },
    });
    return result;
  });
}

export async function cancelPreviewStatus(db: Db, previewId: unknown): Promise<CancelPreviewRow> {
  const id = parseInput(z.uuid('must be a preview id'), previewId);
  const p = await getCancelPreview(db, id);
  if (!p) throw CoreError.notFound('cancel preview');
  return p;
}
