// Seeds the Keys and Streams views with real executions (enqueued, claimed and finished
// through the engine's own functions, no coordinator process): a task whose tenant
// "acme" dominates its group (a hot-key alert fires for it), "globex" with an override,
// and ordered streams whose head failed and waits for its retry.
import type pg from 'pg';
import { applyConfig } from '../../server/services/config-versions';
import { SYSTEM_ACTOR } from '../../server/db/audit';
import { enqueue } from '../../server/services/enqueue';
import { claimExecutions } from '../../server/db/claim-executions';
import { finishExecutions } from '../../server/db/finish-executions';
import { evaluateAlerts } from '../../server/services/alerts';
import { DEFAULT_ALERT_POLICY } from '../../server/core/alert-evaluation';
import type { TaskDefinitionInput } from '../../server/core/task-definition';
import { fakeCoordinator } from '../../test/support/engine-fixtures';

export interface KeysSeed {
  task: string;
  /** The retrying head of stream order-1 and when it retries. */
  retryingHead: number;
  retryAt: Date;
  /** The registered member owning the task's partitions (claims go through it). */
  coordinator: string;
}

export async function seedKeys(pool: pg.Pool, suffix: string): Promise<KeysSeed> {
  const task = `mail-${suffix}`;
  const def: TaskDefinitionInput = {
    name: task,
    partitions: 2,
    concurrency: 20,
    groups: [{ name: 'tenant', limit: 3, keyPath: 'tenant', overrides: { globex: 4 } }],
    stream: { keyPath: 'order' },
    backpressure: { maxDepth: 100_000 },
  };
  const current = await pool.query<{ config: { tasks: TaskDefinitionInput[] } }>('SELECT config FROM config_versions ORDER BY version DESC LIMIT 1');
  const others = (current.rows[0]?.config.tasks ?? []).filter((t) => t.name !== task);
  await applyConfig(pool, SYSTEM_ACTOR, { tasks: [...others, def] }, { message: 'keys e2e seed' });
  const me = await fakeCoordinator(pool, [task]);
  const many = (tenant: string, n: number) => Array.from({ length: n }, (_, i) => ({ payload: { tenant, i } }));
  await enqueue(pool, task, [
    ...many('acme', 60),
    ...many('globex', 6),
    { payload: { tenant: 'initech', order: 'order-1', step: 1 } },
    { payload: { tenant: 'initech', order: 'order-1', step: 2 } },
    { payload: { tenant: 'initech', order: 'order-1', step: 3 } },
  ]);
  // Claim until nothing more fits: acme 3/3, globex 4/4, the stream's head.
  for (let i = 0; i < 10; i++) if ((await claimExecutions(pool, me, task, 20, 3_600_000)).length === 0) break;
  const head = await pool.query<{ id: number; lease_token: string }>(
    `SELECT id, lease_token FROM executions WHERE task = $1 AND stream_key = 'order-1' AND state = 'running'`,
    [task],
  );
  const retryAt = new Date(Date.now() + 15 * 60_000);
  await finishExecutions(pool, task, [{ id: head.rows[0]!.id, leaseToken: head.rows[0]!.lease_token, outcome: 'retry', runAt: retryAt, error: 'SMTP 451: try again later' }]);
  await evaluateAlerts(pool, new Date(), { ...DEFAULT_ALERT_POLICY, forMs: 0 });
  return { task, retryingHead: head.rows[0]!.id, retryAt, coordinator: me };
}
