// Seeds the Executions pages: a send-email-like task with a tenant limit of 8, a member
// that owns its partitions (its heartbeat set ahead, so it stays live for the spec: no
// coordinator process runs in e2e), one hot tenant running at its limit with a queued
// backlog behind it, and a few other tenants' executions, through the engine's own
// enqueue and claim.
import type pg from 'pg';
import { applyConfig } from '../../server/services/config-versions';
import { enqueue } from '../../server/services/enqueue';
import { SYSTEM_ACTOR } from '../../server/db/audit';
import { claimExecutions } from '../../server/db/claim-executions';
import { registerCoordinator } from '../../server/db/coordinator-membership';
import { syncOwnership } from '../../server/db/partition-ownership';
import type { TaskDefinitionInput } from '../../server/core/task-definition';

export interface ExecutionsSeed {
  task: string;
  hotTenant: string;
  running: number[];
  backlog: number[];
}

export async function seedExecutions(pool: pg.Pool, suffix: string): Promise<ExecutionsSeed> {
  const task = `send-email-${suffix}`;
  const hotTenant = `acme-${suffix}`;
  const def: TaskDefinitionInput = {
    name: task,
    partitions: 2,
    concurrency: 40,
    groups: [{ name: 'tenant', limit: 8, keyPath: 'tenant' }],
  };
  // Keep tasks other specs created: apply on top of the current config.
  const current = await pool.query<{ config: { tasks: TaskDefinitionInput[] } }>('SELECT config FROM config_versions ORDER BY version DESC LIMIT 1');
  const others = (current.rows[0]?.config.tasks ?? []).filter((t) => t.name !== task);
  await applyConfig(pool, SYSTEM_ACTOR, { tasks: [...others, def] }, { message: 'executions e2e seed' });

  const me = await registerCoordinator(pool, { name: `e2e-coord-${suffix}`, host: 'e2e', pid: process.pid, tasks: [task], slots: 40, metricsPort: null });
  await syncOwnership(pool, me, [0, 1].map((partition) => ({ task, partition })), 60_000);
  await pool.query(`UPDATE coordinators SET last_heartbeat_at = now() + interval '1 hour' WHERE id = $1`, [me]);

  const email = (tenant: string, i: number) => ({ payload: { tenant, to: `user${i}@${tenant}.example`, template: 'welcome' } });
  await enqueue(pool, task, [...Array.from({ length: 8 }, (_, i) => email(hotTenant, i)), ...['globex', 'initech', 'umbrella'].map((t, i) => email(`${t}-${suffix}`, i))]);
  const running = (await claimExecutions(pool, me, task, 40, 600_000)).map((e) => e.id);
  const backlog = (await enqueue(pool, task, Array.from({ length: 30 }, (_, i) => email(hotTenant, 100 + i)))).executions.map((e) => e.id!);
  return { task, hotTenant, running, backlog };
}
