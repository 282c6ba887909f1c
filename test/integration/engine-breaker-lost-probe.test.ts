// A half-open probe whose coordinator dies (issue 23), with real coordinator processes:
// coordinator A claims the one probe and is killed mid-attempt, so no outcome is ever
// reported for it. Before the fix the breaker stayed half-open with its probe slot taken
// for good (nothing claimed the task again). Now, once the probe has been silent for the
// probe timeout (task timeout + lease grace + two report intervals), its slot is let
// through again: coordinator B claims the rescued execution as the probe, it succeeds, and
// the breaker closes.
import { describe, expect, it } from 'vitest';
import { applyTasks } from '../support/engine-fixtures';
import { coordinatorTestContext, waitFor } from '../support/coordinator-harness';
import { enqueue } from '../../server/services/enqueue';
import { recordBreakerOutcomes } from '../../server/coordinator/breaker-store';
import { probeTimeout } from '../../server/core/circuit-breaker';
import { BREAKER_REPORT_MS } from '../../server/coordinator/main';
import { taskDefinitionSchema } from '../../server/core/task-definition';

const ctx = coordinatorTestContext();
const q = async <T = Record<string, unknown>>(sql: string, params: unknown[] = []) => (await ctx.db.pool.query(sql, params)).rows as T[];
const LEASE_GRACE_MS = 1000; // the harness's SLUICE_LEASE_GRACE_MS

describe('a probe lost with its coordinator', () => {
  it('is let through again after the probe timeout and the breaker closes', async () => {
    const def = {
      name: 'probe',
      partitions: 1,
      concurrency: 1,
      timeoutMs: 2000,
      retry: { maxAttempts: 5, backoff: 'fixed' as const, baseDelayMs: 10, maxDelayMs: 10, jitter: 0 },
      circuitBreaker: { enabled: true, windowMs: 60_000, failureRate: 0.5, minCalls: 4, coolDownMs: 300, probes: 1 },
    };
    await applyTasks(ctx.db.pool, [def]);
    const settings = taskDefinitionSchema.parse(def).circuitBreaker;
    expect((await recordBreakerOutcomes(ctx.db.pool, 'probe', settings, { ok: 0, failed: 4 })).breaker.state).toBe('open');
    await enqueue(ctx.db.pool, 'probe', [{ payload: {} }]);

    const a = await ctx.h.start({ name: 'a', slots: 2, handlers: 'test/support/handlers/probe.ts' });
    // A takes the probe (half-open, its one slot reserved) and hangs in attempt 1.
    await waitFor('the probe running on a', async () => (await q(`SELECT 1 FROM test_runs WHERE task = 'probe' AND attempt = 1`)).length === 1, 20_000, 50);
    expect((await q<{ state: string; probes_started: number }>(`SELECT state, probes_started FROM task_breakers WHERE task = 'probe'`))[0]).toEqual({ state: 'half-open', probes_started: 1 });
    a.kill('SIGKILL');
    await a.exited;

    await ctx.h.start({ name: 'b', slots: 2, handlers: 'test/support/handlers/probe.ts' });
    await waitFor('the breaker to close', async () => (await q<{ state: string }>(`SELECT state FROM task_breakers WHERE task = 'probe'`))[0]?.state === 'closed', 30_000, 100);
    const events = await q<{ from_state: string; to_state: string; reason: string }>(`SELECT from_state, to_state, reason FROM task_breaker_events WHERE task = 'probe' ORDER BY id`);
    expect(events.map((e) => `${e.from_state}→${e.to_state}`)).toEqual(['closed→open', 'open→half-open', 'half-open→half-open', 'half-open→closed']);
    expect(events[2]!.reason).toBe(`1 probe gave no outcome within ${probeTimeout(2000, LEASE_GRACE_MS, BREAKER_REPORT_MS)} ms; let through again`);
    expect((await q<{ state: string; attempts: number }>(`SELECT state, attempts FROM executions WHERE task = 'probe'`))[0]).toEqual({ state: 'succeeded', attempts: 2 });
  });
});
