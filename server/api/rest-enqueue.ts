// The REST enqueue endpoint without HTTP: POST /api/v1/tasks/{task}/executions maps to
// handleEnqueueRequest({taskName, body, db}) → {status, headers, body}. The Next route
// handler only authenticates, calls this and writes the reply.
//   202 {executions: [{id, partition, state, deduplicated}], shed, spilled, throttledMs}
//       + retryAfterMs and Retry-After (seconds) when a partition is in its throttle stage
//       (staged backpressure: accepted, but slow down)
//   400 {error, fieldErrors}   413 {error, fieldErrors} (payload or batch over its limit)
//   429 {error, retryAfterMs} + Retry-After (seconds)
//   404 {error}                unknown or removed task
// A W3C `traceparent` request header travels with the executions (docs/tracing.md); an
// invalid one is ignored, as the W3C spec asks of a receiver (work is never refused for its
// telemetry). With tracing on, the request gets a server span (a child of the header, or of
// the span Next.js already started) and the executions carry that span's context.
import type pg from 'pg';
import { z } from 'zod';
import { CoreError, isCoreError, issueFieldErrors, TOO_LARGE } from '../core/errors';
import { prioritySchema, TASK_NAME_RE } from '../core/task-definition';
import { coreErrorReply, JSON_HEADERS, type RestReply } from './errors';
import { DEFAULT_MAX_PAYLOAD_BYTES, inputRecord, inputText, jsonInput } from '../core/input-text';
import { enqueue, type EnqueueInput } from '../services/enqueue';
import { normalizeTraceparent } from '../core/trace-context';
import { contextFromTraceparent, currentTracing, traceparentOf } from '../telemetry/tracing';

/** Request limits the route passes in (SLUICE_MAX_PAYLOAD_BYTES); the defaults otherwise. */
export interface EnqueueRequestLimits {
  maxPayloadBytes: number;
}

/** Most executions one enqueue request may carry. */
export const MAX_BATCH = 10_000;

const keyText = inputText.min(1, 'must be a non-empty string').max(200, 'must be at most 200 characters');

function executionInput(limits: EnqueueRequestLimits) {
  return z.strictObject({
    payload: jsonInput({ maxBytes: limits.maxPayloadBytes }).refine((v) => v !== undefined, 'required'),
    groups: inputRecord(z.string(), keyText).optional(),
    streamKey: keyText.optional(),
    idempotencyKey: keyText.optional(),
    routingKey: keyText.optional(),
    delayMs: z.number().int().min(0).max(7 * 86_400_000).optional(),
    priority: prioritySchema.optional(),
  });
}

function batchInput(limits: EnqueueRequestLimits) {
  return z.strictObject({ executions: z.array(executionInput(limits)).min(1, 'must not be empty').max(MAX_BATCH, `${TOO_LARGE} ${MAX_BATCH} executions per request`) });
}

export function enqueueRequestSchema(limits: EnqueueRequestLimits = { maxPayloadBytes: DEFAULT_MAX_PAYLOAD_BYTES }) {
  return z.union([batchInput(limits), executionInput(limits)]);
}

export interface EnqueueRequest {
  taskName: string;
  body: unknown;
  db: pg.Pool;
  limits?: EnqueueRequestLimits;
  /** The request's `traceparent` header as received (null: none). */
  traceparent?: string | null;
}

export async function handleEnqueueRequest(req: EnqueueRequest): Promise<RestReply> {
  const incoming = normalizeTraceparent(req.traceparent);
  const tracing = currentTracing();
  if (!tracing) return enqueueReply(req, incoming);
  const { api, tracer } = tracing;
  const active = api.context.active();
  const nested = api.trace.getSpan(active) !== undefined;
  const attributes = { 'http.request.method': 'POST', 'http.route': '/api/v1/tasks/{task}/executions', 'sluice.task': req.taskName };
  return tracer.startActiveSpan(
    'POST /api/v1/tasks/{task}/executions',
    { kind: nested ? api.SpanKind.INTERNAL : api.SpanKind.SERVER, attributes },
    nested ? active : contextFromTraceparent(api, incoming),
    async (span) => {
      try {
        const reply = await enqueueReply(req, traceparentOf(span.spanContext()));
        span.setAttribute('http.response.status_code', reply.status);
        if (reply.status === 202) span.setAttribute('sluice.executions', (reply.body as { executions: unknown[] }).executions.length);
        return reply;
      } catch (e) {
        span.recordException(e as Error);
        span.setStatus({ code: api.SpanStatusCode.ERROR, message: (e as Error).message });
        throw e;
      } finally {
        span.end();
      }
    },
  );
}

async function enqueueReply(req: EnqueueRequest, traceparent: string | null): Promise<RestReply> {
  const limits = req.limits ?? { maxPayloadBytes: DEFAULT_MAX_PAYLOAD_BYTES };
  try {
    if (!TASK_NAME_RE.test(req.taskName)) throw CoreError.notFound(`task "${req.taskName}"`);
    const parsed = enqueueRequestSchema(limits).safeParse(req.body);
    if (!parsed.success) {
      // Report against the shape the caller most likely meant.
      const batch = typeof req.body === 'object' && req.body !== null && 'executions' in req.body;
      const r = batch
        ? batchInput(limits).safeParse(req.body)
        : executionInput(limits).safeParse(req.body);
      const errs = issueFieldErrors(r.success ? parsed.error.issues : r.error.issues);
      throw CoreError.validation(errs);
    }
    const inputs: EnqueueInput[] = 'executions' in parsed.data ? (parsed.data.executions as EnqueueInput[]) : [parsed.data as EnqueueInput];
    const result = await enqueue(req.db, req.taskName, inputs, { maxPayloadBytes: limits.maxPayloadBytes, traceparent });
    const slowDown: Record<string, string> = result.retryAfterMs !== undefined ? { 'retry-after': String(Math.max(1, Math.ceil(result.retryAfterMs / 1000))) } : {};
    return { status: 202, headers: { ...JSON_HEADERS, ...slowDown }, body: result };
  } catch (e) {
    // A CoreError is an answer; anything else goes up to restRoute's 500 (and the span).
    if (isCoreError(e)) return coreErrorReply(e);
    throw e;
  }
}
