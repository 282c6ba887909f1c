// POST /api/v1/tasks/{task}/executions — enqueue one execution or a batch (producer token).
import { restRoute } from '@/server/api/rest';
import { handleEnqueueRequest } from '@/server/services/rest-enqueue';
import { getPool } from '@/server/db/pool';
import { env } from '@/server/env';

export const POST = restRoute<{ task: string }>(['producer', 'operator'], ({ body }, { task }) =>
  handleEnqueueRequest({ taskName: task, body, db: getPool(), limits: { maxPayloadBytes: env().SLUICE_MAX_PAYLOAD_BYTES } }),
);
