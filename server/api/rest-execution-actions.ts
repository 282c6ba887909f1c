// The execution-action REST writes (/api/v1/executions/{id}/cancel, /{id}/retry,
// /cancel-previews, /cancel-previews/{id}, /cancel) as restRoute handlers: the body and
// status conventions of the REST surface mapped onto the services, which validate their
// input themselves (field errors as 400s). The route files under app/api/v1/executions
// only bind these to a method and the roles.
import type { RestContext } from './rest';
import { JSON_HEADERS, type RestReply } from './errors';
import { CoreError } from '../core/errors';
import { parseInput } from '../core/validate-input';
import { cancelExecution, retryExecutionNow } from '../services/execution-actions';
import { cancelMatching, cancelPreviewInput, cancelPreviewStatus, previewCancelMatching } from '../services/execution-cancel-matching';

/** POST {id}/cancel: 200 canceled now; 202 running, cancel requested. */
export async function cancelExecutionReply({ db, actor }: RestContext, { id }: { id: string }): Promise<RestReply> {
  const out = await cancelExecution(db, actor, id);
  return { status: out.result === 'canceled' ? 200 : 202, headers: JSON_HEADERS, body: out };
}

/** POST {id}/retry: a scheduled execution runs now. */
export async function retryExecutionReply({ db, actor }: RestContext, { id }: { id: string }): Promise<RestReply> {
  return { status: 200, headers: JSON_HEADERS, body: await retryExecutionNow(db, actor, id) };
}

/** POST cancel-previews {filter, dryRun?}: 201 with the frozen set, 200 for a dry run. */
export async function previewCancelReply({ db, actor, body }: RestContext): Promise<RestReply> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw CoreError.badRequest('the body must be a JSON object {filter, dryRun?}', [{ path: 'filter', message: 'is required' }]);
  }
  const { filter, dryRun } = parseInput(cancelPreviewInput, body);
  const preview = await previewCancelMatching(db, actor, filter, { dryRun });
  return { status: dryRun ? 200 : 201, headers: JSON_HEADERS, body: dryRun ? { ...preview, id: null, dryRun } : preview };
}

/** GET cancel-previews/{id}: the preview and whether it was applied. */
export async function cancelPreviewReply({ db }: RestContext, { id }: { id: string }): Promise<RestReply> {
  return { status: 200, headers: JSON_HEADERS, body: await cancelPreviewStatus(db, id) };
}

/** POST cancel {previewId, confirm, filter?}: cancels exactly the preview's frozen set, once. */
export async function cancelMatchingReply({ db, actor, body }: RestContext): Promise<RestReply> {
  return { status: 200, headers: JSON_HEADERS, body: await cancelMatching(db, actor, (body ?? {}) as never) };
}
