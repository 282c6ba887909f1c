// Operator actions on one execution, each audited in the transaction that makes it:
//   cancel    — queued, scheduled, blocked or spilled: canceled now (counters, slots and
//               its stream released in the same commit); running: cancel requested — its
//               coordinator aborts the handler's AbortSignal and records `canceled`, which
//               frees the slots and the stream (db/cancel-executions.ts says why not at once);
//   retry now — a scheduled execution (retry backoff or delay) becomes due at once.
// Called by tRPC (routers/execution-actions), REST (/api/v1/executions/{id}/…) and the CLI.
import { CoreError } from '../core/errors';
import { executionIdSchema } from '../core/execution-cancel-filter';
import { recordAudit, type Actor } from '../db/audit';
import { withTransaction, type Db } from '../db/pool';
import { cancelExecutions, executionTask, type PriorState } from '../db/cancel-executions';
import { runExecutionNow } from '../db/run-execution-now';
import { parseInput } from '../core/validate-input';

export interface CancelExecutionResult {
  id: number;
  task: string;
  prior: PriorState;
  /** canceled: done. requested: running; its coordinator aborts it and records `canceled`. */
  result: 'canceled' | 'requested';
}

export interface RetryNowResult {
  id: number;
  task: string;
  previousRunAt: Date;
  runAt: Date;
}

async function findTask(pool: Db, id: number): Promise<{ task: string; state: string }> {
  const row = await executionTask(pool, id);
  if (!row) throw CoreError.notFound(`execution ${id}`);
  return row;
}

export async function cancelExecution(pool: Db, actor: Actor, rawId: unknown): Promise<CancelExecutionResult> {
  const id = parseInput(executionIdSchema, rawId);
  const { task } = await findTask(pool, id);
  return withTransaction(pool, async (c) => {
    const [out] = await cancelExecutions(c, task, [id]);
    if (!out) {
      const now = await executionTask(c, id);
      throw new CoreError('CONFLICT', `Execution ${id} is ${now?.state ?? 'gone'}: there is nothing to cancel.`);
    }
    await recordAudit(c, actor, {
      action: out.result === 'canceled' ? 'execution.cancel' : 'execution.cancel_request',
      targetType: 'execution',
      targetId: String(id),
      before: { state: out.prior },
      after: { state: out.result === 'canceled' ? 'canceled' : 'running', cancelRequested: true },
      meta: { task },
    });
    return { id, task, prior: out.prior, result: out.result };
  });
}

export async function retryExecutionNow(pool: Db, actor: Actor, rawId: unknown): Promise<RetryNowResult> {
  const id = parseInput(executionIdSchema, rawId);
  const { task } = await findTask(pool, id);
  return withTransaction(pool, async (c) => {
    const out = await runExecutionNow(c, task, id);
    if (!out) {
      const now = await executionTask(c, id);
      const why = now?.state === 'queued' ? 'queued and already due' : (now?.state ?? 'gone');
      throw new CoreError('CONFLICT', `Execution ${id} is ${why}: only a scheduled execution (a retry's backoff or a delay) can run now.`);
    }
    await recordAudit(c, actor, {
      action: 'execution.retry_now',
      targetType: 'execution',
      targetId: String(id),
      before: { runAt: out.previousRunAt },
      after: { runAt: out.runAt },
      meta: { task },
    });
    return { id, task, previousRunAt: out.previousRunAt, runAt: out.runAt };
  });
}
