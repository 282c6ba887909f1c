// The SDK without HTTP, for code that shares Sluice's database (jobs enqueued from a
// worker, a migration script): the same enqueue service the REST endpoint calls, so
// routing, groups, streams, idempotency and backpressure behave identically.
// Errors are CoreErrors (code BAD_REQUEST / NOT_FOUND / TOO_MANY_REQUESTS with retryAfterMs);
// an invalid options.traceparent is a BAD_REQUEST naming `traceparent`.
import type pg from 'pg';
import { enqueue as enqueueService } from '../services/enqueue';
import type { EnqueueCallOptions, EnqueueInput, EnqueueResult, EnqueuedExecution } from './index';

export interface SluiceDbClient {
  enqueue(task: string, input: EnqueueInput, options?: EnqueueCallOptions): Promise<EnqueuedExecution & { result: EnqueueResult }>;
  enqueueMany(task: string, inputs: EnqueueInput[], options?: EnqueueCallOptions): Promise<EnqueueResult>;
}

export function createDbClient(pool: pg.Pool): SluiceDbClient {
  return {
    async enqueue(task, input, options) {
      const result = (await enqueueService(pool, task, [input], { traceparent: options?.traceparent ?? null })) as EnqueueResult;
      return { ...result.executions[0]!, result };
    },
    async enqueueMany(task, inputs, options) {
      if (inputs.length === 0) return { executions: [], shed: 0, spilled: 0, throttledMs: 0 };
      return (await enqueueService(pool, task, inputs, { traceparent: options?.traceparent ?? null })) as EnqueueResult;
    },
  };
}
