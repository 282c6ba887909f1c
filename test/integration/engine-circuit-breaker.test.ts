// The circuit breaker with real coordinator processes (issue 23): a handler whose target
// goes down trips the task's breaker within its window; while it is open no coordinator
// claims the task (no attempt is made, queued executions wait, retries are not used up);
// after the cool-down the half-open probes find the target back and close it, and the
// backlog drains. Attempts are counted from the handler's own records (test_runs: every
// call, failed or not), times on the one machine clock the processes and Postgres share.
import { describe, expect, it } from 'vitest';
import { applyTasks } from '../support/engine-fixtures';
import { coordinatorTestContext, waitFor } from '../support/coordinator-harness';
import { enqueue } from '../../server/services/enqueue';

const ctx = coordinatorTestContext();
const q = async <T = Record<string, unknown>>(sql: string, params: unknown[] = []) => (await ctx.db.pool.query(sql, params)).rows as T[];
const n = async (sql: string, params: unknown[] = []) => Number((await q<{ n: string }>(sql, params))[0]!.n);

describe('circuit breaker across coordinators', () => {
  it('trips on failures, makes no attempt while open, closes when the half-open probes succeed', async () => {
    const COOL_DOWN_MS = 3000;
    const PROBES = 2;
    await ctx.db.pool.query(`CREATE TABLE test_breaker_switch (task text PRIMARY KEY, down boolean NOT NULL)`);
    await ctx.db.pool.query(`INSERT INTO test_breaker_switch VALUES ('brk', true)`);
    await applyTasks(ctx.db.pool, [
      {
        name: 'brk',
        partitions: 2,
        concurrency: 4,
        retry: { maxAttempts: 50, backoff: 'fixed', baseDelayMs: 20, maxDelayMs: 20, jitter: 0 },
        circuitBreaker: { enabled: true, windowMs: 60_000, failureRate: 0.5, minCalls: 6, coolDownMs: COOL_DOWN_MS, probes: PROBES },
      },
    ]);
    const handlers = 'test/support/handlers/breaker.ts';
    await ctx.h.start({ name: 'a', slots: 4, handlers });
    await ctx.h.start({ name: 'b', slots: 4, handlers });

    await enqueue(ctx.db.pool, 'brk', Array.from({ length: 30 }, (_, i) => ({ payload: { i } })));

    // 1. It trips, and says why.
    const opened = await waitFor('the breaker to open', async () => (await q<{ state: string; reason: string; trips_total: string }>(`SELECT state, reason, trips_total FROM task_breakers WHERE task = 'brk'`))[0]?.state === 'open' && true, 20_000, 20);
    expect(opened).toBe(true);
    const [row] = await q<{ reason: string; trips_total: string }>(`SELECT reason, trips_total FROM task_breakers WHERE task = 'brk'`);
    expect(row!.reason).toMatch(/^\d+ of \d+ executions failed in 60000 ms \(threshold 50%\)$/);
    expect(Number(row!.trips_total)).toBe(1);

    // The target comes back while the breaker is open: only the probes can notice.
    await ctx.db.pool.query(`UPDATE test_breaker_switch SET down = false WHERE task = 'brk'`);

    // 2. Once the attempts claimed before the trip have finished, nothing runs until half-open.
    await waitFor('nothing running', async () => (await n(`SELECT count(*) AS n FROM executions WHERE task = 'brk' AND state = 'running'`)) === 0, 10_000, 20);
    const quietMs = Date.now();
    const attemptsAtQuiet = await n(`SELECT count(*) AS n FROM test_runs WHERE task = 'brk'`);

    // Why-waiting names the breaker, when it opened and why (read during the cool-down).
    const [waiting] = await q<{ w: { reason: string; holds: { reason: string; state: string; why: string; probesAt: string | null }[] } }>(
      `SELECT sluice_why_waiting(id) AS w FROM executions WHERE task = 'brk' AND state = 'queued' ORDER BY id LIMIT 1`,
    );
    const stillOpen = (await q<{ state: string }>(`SELECT state FROM task_breakers WHERE task = 'brk'`))[0]!.state === 'open';
    if (stillOpen) {
      expect(waiting!.w.reason).toBe('circuit_open');
      expect(waiting!.w.holds[0]).toMatchObject({ reason: 'circuit_open', state: 'open', why: row!.reason });
      expect(waiting!.w.holds[0]!.probesAt).not.toBeNull();
    }

    // 3. Half-open, then closed by the probes.
    await waitFor('the breaker to close', async () => (await q<{ state: string }>(`SELECT state FROM task_breakers WHERE task = 'brk'`))[0]?.state === 'closed', 20_000, 50);
    const events = await q<{ from_state: string; to_state: string; reason: string; at_ms: number }>(
      `SELECT from_state, to_state, reason, extract(epoch FROM at) * 1000 AS at_ms FROM task_breaker_events WHERE task = 'brk' ORDER BY id`,
    );
    expect(events.map((e) => `${e.from_state}→${e.to_state}`)).toEqual(['closed→open', 'open→half-open', 'half-open→closed']);
    expect(events[2]!.reason).toBe(`${PROBES} probes succeeded`);
    const [openAt, halfAt, closedAt] = events.map((e) => Number(e.at_ms));
    expect(halfAt! - openAt!).toBeGreaterThanOrEqual(COOL_DOWN_MS);

    // No attempt between the quiet point and half-open (the cool-down), and the quiet point
    // was inside the cool-down (so the check covered something).
    expect(quietMs).toBeLessThan(halfAt!);
    const duringCoolDown = await n(`SELECT count(*) AS n FROM test_runs WHERE task = 'brk' AND started_ms > $1 AND started_ms < $2`, [quietMs, halfAt]);
    expect(duringCoolDown).toBe(0);
    expect(await n(`SELECT count(*) AS n FROM test_runs WHERE task = 'brk' AND started_ms <= $1`, [quietMs])).toBe(attemptsAtQuiet);
    // While half-open only the probes ran, and they succeeded (seq 1 = the target was up).
    const probes = await q<{ seq: number }>(`SELECT seq FROM test_runs WHERE task = 'brk' AND started_ms >= $1 AND started_ms < $2`, [halfAt, closedAt]);
    expect(probes.length).toBeLessThanOrEqual(PROBES);
    expect(probes.length).toBeGreaterThan(0);
    expect(probes.every((p) => p.seq === 1)).toBe(true);

    // 4. Closed again: the backlog drains; nothing went dead (the wait cost no attempt).
    await waitFor('all 30 succeeded', async () => (await n(`SELECT count(*) AS n FROM executions WHERE task = 'brk' AND state = 'succeeded'`)) === 30, 20_000);
    expect(await n(`SELECT count(*) AS n FROM dead_letters WHERE task = 'brk'`)).toBe(0);
    const failed = await n(`SELECT count(*) AS n FROM test_runs WHERE task = 'brk' AND seq = 0`);
    const total = await n(`SELECT count(*) AS n FROM test_runs WHERE task = 'brk'`);
    expect(total - failed).toBe(30);
    expect(failed).toBeLessThanOrEqual(attemptsAtQuiet); // every failure happened before the cool-down
    expect(await n(`SELECT count(*) AS n FROM test_runs WHERE task = 'brk' AND seq = 0 AND started_ms > $1`, [quietMs])).toBe(0);
  }, 90_000);
});
