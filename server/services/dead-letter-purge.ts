// Purge dead letters safely, in two steps (the lesson of Sidekiq's "Delete All" that
// ignored the filter and raced new arrivals):
//   preview — freeze the exact ids (a selection, or everything matching the filter) and
//             report their count; nothing is deleted;
//   purge   — the operator types "purge <count>"; only the frozen ids are deleted, once,
//             before the preview expires; audited in the same transaction with the
//             filter and the counts.
// A dry run computes the preview inside a transaction that is rolled back.
// Before purging, the frozen set can be exported as JSON lines (exportFrozenSet).
import { z } from 'zod';
import { inputText } from '../core/input-text';
import { withTransaction, type Db } from '../db/pool';
import { CoreError } from '../core/errors';
import { confirmationMatches, purgeConfirmationPhrase } from '../core/dead-letter-filter';
import { recordAudit, type Actor } from '../db/audit';
import { freezePurgeSet, type FrozenPurgeSet, type FrozenSetPurpose } from '../db/freeze-purge-set';
import { getPurgePreview, purgeFrozenSet, type PurgePreviewRow } from '../db/purge-frozen-set';
import { readFrozenSetPage, type ExportedDeadLetter } from '../db/read-frozen-set';
import { deadLetterScopeInput, scopeKind, type DeadLetterScopeInput } from './dead-letter-scope';
import { parseInput } from '../core/validate-input';

/** How long a preview stays purgeable. */
export const PREVIEW_TTL_MINUTES = 30;

export const purgeInput = z.strictObject({
  previewId: z.uuid('must be a preview id'),
  confirm: inputText.max(100, 'is too long'),
});
export type PurgeInput = z.input<typeof purgeInput>;

/** The body of POST /api/v1/dead-letters/purge-previews. */
export const purgePreviewRequestInput = z.strictObject({ scope: deadLetterScopeInput, dryRun: z.boolean().optional() });

/** A preview named in a path (/purge-previews/{id}); a bad one is reported as the `id` field. */
const previewIdInput = z.strictObject({ id: z.uuid('must be a preview id') });

export interface PurgePreview extends FrozenPurgeSet {
  /** What the operator must type to purge this set. */
  confirmation: string;
}

export interface PurgeResult {
  previewId: string;
  frozen: number;
  deleted: number;
  byTask: { task: string; count: number }[];
}

/** The REST request: the body checked as a whole (unknown fields refused), then previewPurge. */
export async function previewPurgeRequest(pool: Db, actor: Actor, body: unknown): Promise<{ preview: PurgePreview; dryRun: boolean }> {
  const v = parseInput(purgePreviewRequestInput, body ?? {});
  const dryRun = v.dryRun === true;
  return { preview: await previewPurge(pool, actor, v.scope, { dryRun }), dryRun };
}

/**
 * Freezes the set and returns its count, audited (`dlq.purge.preview`: who froze which
 * set, how many, per task) in the same transaction; `dryRun` reports the same figures and
 * stores nothing, the audit row included.
 */
export function previewPurge(pool: Db, actor: Actor, input: DeadLetterScopeInput, opts: { dryRun?: boolean } = {}): Promise<PurgePreview> {
  return freezeDeadLetterSet(pool, actor, input, 'purge', opts);
}

/**
 * The frozen set of a purge or of a replay (services/dead-letter-replay.ts previewReplay), audited
 * as `dlq.<purpose>.preview`. A replay's set holds only dead letters not replayed yet.
 */
export async function freezeDeadLetterSet(
  pool: Db,
  actor: Actor,
  input: DeadLetterScopeInput,
  purpose: FrozenSetPurpose,
  opts: { dryRun?: boolean } = {},
): Promise<PurgePreview> {
  const scope = scopeKind(parseInput(deadLetterScopeInput, input));
  const frozen = await withTransaction(
    pool,
    async (c) => {
      const set = await freezePurgeSet(c, actor, scope, PREVIEW_TTL_MINUTES, purpose);
      await recordAudit(c, actor, {
        action: `dlq.${purpose}.preview`,
        targetType: 'dead_letters',
        targetId: set.id,
        after: { frozen: set.total },
        meta: {
          scope: scope.kind,
          ...(scope.kind === 'filter' ? { filter: scope.filter } : { ids: scope.ids.length }),
          frozen: set.total,
          byTask: set.byTask,
          expiresAt: set.expiresAt.toISOString(),
        },
      });
      return set;
    },
    { rollback: opts.dryRun === true },
  );
  return { ...frozen, confirmation: purpose === 'purge' ? purgeConfirmationPhrase(frozen.total) : `replay ${frozen.total}` };
}

export async function purgeDeadLetters(pool: Db, actor: Actor, input: PurgeInput): Promise<PurgeResult> {
  const v = parseInput(purgeInput, input);
  return withTransaction(pool, async (c) => {
    const preview = await getPurgePreview(c, v.previewId, { lock: true });
    if (!preview || preview.purpose !== 'purge') throw CoreError.notFound('purge preview');
    if (preview.purgedAt) {
      throw new CoreError('CONFLICT', `This set was already purged by ${preview.purgedByLabel ?? 'someone'} (${preview.purgedCount ?? 0} deleted).`);
    }
    if (preview.expired) {
      throw new CoreError('PRECONDITION_FAILED', 'This preview has expired; preview the purge again to freeze a fresh set.');
    }
    if (!confirmationMatches(v.confirm, preview.total)) {
      const phrase = purgeConfirmationPhrase(preview.total);
      throw CoreError.badRequest(`Type "${phrase}" to confirm.`, [{ path: 'confirm', message: `type "${phrase}" to confirm` }]);
    }
    const { deleted, byTask } = await purgeFrozenSet(c, v.previewId, actor.label);
    await recordAudit(c, actor, {
      action: 'dlq.purge',
      targetType: 'dead_letters',
      targetId: v.previewId,
      before: { frozen: preview.total },
      after: { deleted },
      meta: { scope: preview.scope, filter: preview.filter, frozen: preview.total, deleted, byTask, previewBy: preview.createdByLabel },
    });
    return { previewId: v.previewId, frozen: preview.total, deleted, byTask };
  });
}

export async function purgePreviewStatus(db: Db, previewId: string): Promise<PurgePreviewRow> {
  const { id } = parseInput(previewIdInput, { id: previewId });
  const p = await getPurgePreview(db, id);
  if (!p) throw CoreError.notFound('purge preview');
  return p;
}

const EXPORT_PAGE = 1000;

/** The frozen set as JSON lines (one dead letter per line, id order), page by page. */
export async function* exportFrozenSet(db: Db, previewId: string): AsyncGenerator<string> {
  const p = await purgePreviewStatus(db, previewId);
  if (p.purgedAt) throw new CoreError('CONFLICT', 'This set was already purged; there is nothing left to export.');
  let after = 0;
  for (;;) {
    const rows: ExportedDeadLetter[] = await readFrozenSetPage(db, previewId, after, EXPORT_PAGE);
    if (rows.length === 0) return;
    yield rows.map((r) => JSON.stringify(r)).join('\n') + '\n';
    after = rows[rows.length - 1]!.id;
  }
}
