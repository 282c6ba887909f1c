// The W2 workload's shape, shared by `npm run bench` and `npm run bench:soak`: 10 tenants ×
// 100 keys, limits 20 per tenant and 1 per key, 4 partitions, concurrency 200.
import type { TaskDefinitionInput } from '../../server/core/task-definition';

export const w2Task = (name: string, extra: Partial<TaskDefinitionInput> = {}): TaskDefinitionInput => ({
  name,
  partitions: 4,
  concurrency: 200,
  groups: [
    { name: 'tenant', limit: 20, keyPath: 't' },
    { name: 'key', limit: 1, keyPath: 'k' },
  ],
  backpressure: { maxDepth: 10_000_000 },
  ...extra,
});
