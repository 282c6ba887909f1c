// POST /api/v1/tasks/{task}/executions — enqueue one execution or a batch (producer token).
import { restRoute } from '@/server/api/rest';
import { handleEnqueueRequest } from '@/server/api/rest-enqueue';

export const POST = restRoute<{ task: string }>(['producer', 'operator'], ({ body, db }, { task }) =>
  handleEnqueueRequest({ taskName: task, body, db: db }),
);
