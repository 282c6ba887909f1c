// POST /api/v1/tasks/{task}/executions — enqueue one execution or a batch (producer token);
// a W3C traceparent header travels with the executions (docs/tracing.md).
import { restRoute, TOKEN_ACCESS } from '@/server/api/rest';
import { handleEnqueueRequest } from '@/server/api/rest-enqueue';
import { env } from '@/server/env';

export const POST = restRoute<{ task: string }>(TOKEN_ACCESS.enqueue, ({ req, body, db }, { task }) =>
  handleEnqueueRequest({ taskName: task, body, db, limits: { maxPayloadBytes: env().SLUICE_MAX_PAYLOAD_BYTES }, traceparent: req.headers.get('traceparent') }),
);
