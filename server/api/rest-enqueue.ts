// The REST enqueue endpoint without HTTP: POST /api/v1/tasks/{task}/executions maps to
// handleEnqueueRequest({taskName, body, db}) → {status, headers, body}. The Next route
// handler only authenticates, calls this and writes the reply.
//   202 {executions: [{id, partition, state, deduplicated}], shed, spilled, throttledMs}
//   400 {error, fieldErrors}   429 {error, retryAfterMs} + Retry-After (seconds)
//   404 {error}                unknown or removed task
import type pg from 'pg';
import { z } from 'zod';
import { CoreError, isCoreError } from '../core/errors';
import { fieldErrors, TASK_NAME_RE } from '../core/task-definition';
import { enqueue, type EnqueueInput } from '../services/enqueue';

const executionInput = z
  .object({
    payload: z.unknown().refine((v) => v !== undefined, 'required'),
    groups: z.record(z.string(), z.string().min(1, 'must be a non-empty string').max(200)).optional(),
    streamKey: z.string().min(1).max(200).optional(),
    idempotencyKey: z.string().min(1).max(200).optional(),
    routingKey: z.string().min(1).max(200).optional(),
    delayMs: z.number().int().min(0).max(7 * 86_400_000).optional(),
  })
  .strict();

export const enqueueRequestSchema = z.union([
  z.object({ executions: z.array(executionInput).min(1, 'must not be empty').max(10_000) }).strict(),
  executionInput,
]);

export interface RestReply {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

const JSON_HEADERS = { 'content-type': 'application/json' };

export function errorReply(e: unknown): RestReply {
  if (isCoreError(e)) {
    const status =
      { BAD_REQUEST: 400, NOT_FOUND: 404, CONFLICT: 409, FORBIDDEN: 403, UNAUTHORIZED: 401, TOO_MANY_REQUESTS: 429, PRECONDITION_FAILED: 412 }[e.code];
    const headers: Record<string, string> = { ...JSON_HEADERS };
    const body: Record<string, unknown> = { error: e.message, code: e.code };
    if (e.fieldErrors) body.fieldErrors = e.fieldErrors;
    if (e.code === 'TOO_MANY_REQUESTS') {
      const ms = e.retryAfterMs ?? 1000;
      headers['retry-after'] = String(Math.max(1, Math.ceil(ms / 1000)));
      body.retryAfterMs = ms;
    }
    return { status, headers, body };
  }
  throw e;
}

export async function handleEnqueueRequest(req: { taskName: string; body: unknown; db: pg.Pool }): Promise<RestReply> {
  try {
    if (!TASK_NAME_RE.test(req.taskName)) throw CoreError.notFound(`task "${req.taskName}"`);
    const parsed = enqueueRequestSchema.safeParse(req.body);
    if (!parsed.success) {
      // Report against the shape the caller most likely meant.
      const batch = typeof req.body === 'object' && req.body !== null && 'executions' in req.body;
      const r = batch
        ? z.object({ executions: z.array(executionInput).min(1, 'must not be empty').max(10_000) }).strict().safeParse(req.body)
        : executionInput.safeParse(req.body);
      const errs = r.success ? fieldErrors(parsed.error) : fieldErrors(r.error);
      throw CoreError.validation(errs);
    }
    const inputs: EnqueueInput[] = 'executions' in parsed.data ? (parsed.data.executions as EnqueueInput[]) : [parsed.data as EnqueueInput];
    const result = await enqueue(req.db, req.taskName, inputs);
    return { status: 202, headers: { ...JSON_HEADERS }, body: result };
  } catch (e) {
    return errorReply(e);
  }
}
