// The dead-letter REST writes (/api/v1/dead-letters/purge-previews, /purge, /replay,
// /replay-jobs/{id}/{action}) as restRoute handlers: the body and header conventions of
// the REST surface mapped onto the DLQ services, which validate the input themselves
// (field errors as 400s). The route files under app/api/v1/dead-letters only bind these
// to a method and the roles.
import type { RestContext } from './rest';
import { JSON_HEADERS, type RestReply } from './errors';
import { idFromPath } from './dead-letter-rest-query';
import { previewPurgeRequest, purgeDeadLetters } from '../services/dead-letter-purge';
import { controlReplayJob, createReplayJob } from '../services/dead-letter-replay';

const objectBody = (body: unknown): Record<string, unknown> =>
  (typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {}) as Record<string, unknown>;

/** POST purge-previews {scope, dryRun?}: 201 with the frozen set, 200 for a dry run. */
export async function previewPurgeReply({ db, actor, body }: RestContext): Promise<RestReply> {
  const { preview, dryRun } = await previewPurgeRequest(db, actor, body);
  return { status: dryRun ? 200 : 201, headers: JSON_HEADERS, body: dryRun ? { ...preview, id: null, dryRun } : preview };
}

/** POST purge {previewId, confirm}: deletes exactly the preview's frozen set, once. */
export async function purgeReply({ db, actor, body }: RestContext): Promise<RestReply> {
  return { status: 200, headers: JSON_HEADERS, body: await purgeDeadLetters(db, actor, (body ?? {}) as never) };
}

/** POST replay {scope, resetAttempts?, ratePerSecond?, requestId?, dryRun?}: 202 with the
 *  job, 200 for a dry run. An Idempotency-Key header stands in for requestId. */
export async function createReplayReply({ db, req, actor, body }: RestContext): Promise<RestReply> {
  const { dryRun, ...input } = objectBody(body);
  const key = req.headers.get('idempotency-key');
  if (key && input.requestId === undefined) input.requestId = key;
  const r = await createReplayJob(db, actor, input as never, { dryRun: dryRun === true });
  return { status: r.dryRun ? 200 : 202, headers: JSON_HEADERS, body: r };
}

/** POST replay-jobs/{id}/{pause|resume|cancel}. */
export async function controlReplayReply({ db, actor }: RestContext, { id, action }: { id: string; action: string }): Promise<RestReply> {
  return { status: 200, headers: JSON_HEADERS, body: await controlReplayJob(db, actor, { jobId: idFromPath(id), action: action as never }) };
}
