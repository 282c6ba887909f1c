// Small fixtures for the coordinator's unit tests (server/coordinator/*.test.ts): a task
// definition as a config version would hold it, and a claimed row.
import { parseTaskDefinition, type TaskDefinition, type TaskDefinitionInput } from '../../server/core/task-definition';
import type { ClaimedExecution } from '../../server/db/claim-executions';

export function taskDef(input: TaskDefinitionInput): TaskDefinition {
  const r = parseTaskDefinition(input);
  if (!r.ok) throw new Error(`bad task definition: ${JSON.stringify(r.errors)}`);
  return r.value;
}

export function claimedRow(id: number, over: Partial<ClaimedExecution> = {}): ClaimedExecution {
  return { id, partition: 0, attempts: 1, payload: { id }, groups: {}, streamKey: null, idempotencyKey: null, leaseToken: `lease-${id}`, ...over };
}
