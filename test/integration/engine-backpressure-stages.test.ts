// Staged backpressure (issue 23) on a real database: one partition, maxDepth 20, throttle
// from 50% (depth 10), the policy from 75% (depth 15). Single enqueues walk the partition
// through the stages: normal answers plainly, throttle accepts with a delay and a
// retryAfterMs hint (REST: Retry-After on the 202), the policy rejects (429) — or sheds or
// spills — exactly at the configured depths; each stage change is counted in
// partition_stats and the live stage reaches Prometheus.
import { beforeAll, describe, expect, it } from 'vitest';
import { testDatabase, type TestDatabase } from './db';
import { applyTasks } from '../support/engine-fixtures';
import { enqueue } from '../../server/services/enqueue';
import { handleEnqueueRequest } from '../../server/api/rest-enqueue';
import { controlPlaneMetricsText } from '../../server/presenters/control-plane-metrics';
import type { TaskDefinitionInput } from '../../server/core/task-definition';

let db: TestDatabase;
beforeAll(async () => {
  db = await testDatabase();
});

const staged = (name: string, policy: 'reject' | 'shed' | 'spill'): TaskDefinitionInput => ({
  name,
  partitions: 1,
  backpressure: { maxDepth: 20, policy, retryAfterMs: 700, throttleDelayMs: 10, throttleMaxDelayMs: 1000, shedPercent: 100, stages: { throttleAtPercent: 50, policyAtPercent: 75 } },
});

const stats = async (task: string) =>
  (await db.pool.query<{ depth: string; bp_stage: string; bp_stage_changes: string; rejected_total: string }>(`SELECT depth, bp_stage, bp_stage_changes, rejected_total FROM partition_stats WHERE task = $1`, [task])).rows[0]!;

describe('staged backpressure', () => {
  it('reject: normal up to depth 10, throttled with a retryAfterMs hint to 15, then 429', async () => {
    await applyTasks(db.pool, [staged('stg', 'reject')]);
    const answers: string[] = [];
    for (let i = 0; i < 15; i++) {
      const r = await enqueue(db.pool, 'stg', [{ payload: { i } }]);
      answers.push(r.retryAfterMs === undefined ? `ok:${r.throttledMs}` : `throttle:${r.throttledMs}:${r.retryAfterMs}`);
    }
    // the 11th lands 1 past the throttle line (10 ms), the 15th 5 past (50 ms)
    expect(answers).toEqual([
      ...Array(10).fill('ok:0'),
      'throttle:10:700', 'throttle:20:700', 'throttle:30:700', 'throttle:40:700', 'throttle:50:700',
    ]);
    await expect(enqueue(db.pool, 'stg', [{ payload: { i: 15 } }])).rejects.toMatchObject({ code: 'TOO_MANY_REQUESTS', retryAfterMs: 700 });
    const s = await stats('stg');
    expect({ depth: Number(s.depth), stage: s.bp_stage, rejected: Number(s.rejected_total) }).toEqual({ depth: 15, stage: 'policy', rejected: 1 });
    expect(Number(s.bp_stage_changes)).toBe(2); // normal → throttle → policy

    const metrics = await controlPlaneMetricsText(db.pool);
    expect(metrics).toMatch(/sluice_partition_backpressure_stage\{task="stg",partition="0"\} 2/);
    expect(metrics).toMatch(/sluice_partition_backpressure_stage_changes_total\{task="stg",partition="0"\} 2/);
  });

  it('the REST reply of a throttled enqueue is a 202 with retryAfterMs and Retry-After', async () => {
    await applyTasks(db.pool, [staged('stg', 'reject'), staged('stg-rest', 'reject')]);
    await enqueue(db.pool, 'stg-rest', Array.from({ length: 10 }, (_, i) => ({ payload: { i } })));
    const r = await handleEnqueueRequest({ taskName: 'stg-rest', body: { payload: {} }, db: db.pool } as never);
    expect(r.status).toBe(202);
    expect(r.headers['retry-after']).toBe('1');
    expect(r.body).toMatchObject({ throttledMs: 10, retryAfterMs: 700 });
  });

  it.each<['shed' | 'spill', string]>([
    ['shed', 'shed'],
    ['spill', 'spilled'],
  ])('%s: the policy takes over past depth 15', async (policy, state) => {
    const name = `stg-${policy}`;
    await applyTasks(db.pool, [staged('stg', 'reject'), staged('stg-rest', 'reject'), staged(name, policy)]);
    const r = await enqueue(db.pool, name, Array.from({ length: 17 }, (_, i) => ({ payload: { i } })));
    expect(r.executions.slice(0, 15).every((e) => e.state === 'queued')).toBe(true);
    expect(r.executions.slice(15).map((e) => e.state)).toEqual([state, state]);
    // 5 of the accepted landed past the throttle line
    expect(r.throttledMs).toBe(50);
    expect((await stats(name)).bp_stage).toBe('policy');
  });
});
