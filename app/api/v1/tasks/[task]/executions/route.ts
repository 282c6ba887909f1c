// POST /api/v1/tasks/{task}/executions — enqueue one execution or a batch (producer token).
import { restRoute } from '@/server/api/rest';
import { handleEnqueueRequest } from '@/server/services/rest-enqueue';
import { getPool } from '@/server/db/pool';

export const POST = restRoute<{ task: string }>(['producer', 'operator'], ({ body }, { task }) =>
  handleEnqueueRequest({ taskName: task, body, db: getPool() }),
);
