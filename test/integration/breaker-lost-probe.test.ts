// A half-open breaker whose reserved probe never reports (issue 23): the probe execution
// was released (its coordinator shut down, an operator canceled it) or its coordinator
// died, so no success or failure ever arrives. Before the fix every probe slot stayed
// taken and the breaker sat in half-open for good: no further claim, no close, no re-open.
// Now a probe without an outcome for probeTimeoutMs (the gate passes the task's timeout +
// the lease grace + the report interval: past it the execution is certainly not running
// under that reservation) hands its slot back, and the next claim gets a probe again.
import { describe, expect, it, beforeAll } from 'vitest';
import { testDatabase, type TestDatabase } from './db';
import { applyTasks, sleep } from '../support/engine-fixtures';
import { admitProbes, recordBreakerOutcomes } from '../../server/coordinator/breaker-store';
import { readBreakers } from '../../server/db/task-breakers';

let db: TestDatabase;
const settings = { enabled: true, windowMs: 60_000, failureRate: 0.5, minCalls: 4, coolDownMs: 100, probes: 2 };
const PROBE_TIMEOUT_MS = 600;

beforeAll(async () => {
  db = await testDatabase();
  await applyTasks(db.pool, [{ name: 'stuck', partitions: 1, timeoutMs: 200, circuitBreaker: settings }]);
});

const row = async () => (await readBreakers(db.pool, ['stuck']))[0]!;

describe('a reserved probe released without an outcome', () => {
  it('does not hold the breaker in half-open: the slot comes back after the probe timeout', async () => {
    const opened = await recordBreakerOutcomes(db.pool, 'stuck', settings, { ok: 0, failed: 4 });
    expect(opened.breaker.state).toBe('open');
    await sleep(150);

    // Half-open: both probes reserved by one claim; one probe succeeds, the other is released
    // (a shutdown, a cancel, or its coordinator died) and never reports.
    const first = await admitProbes(db.pool, 'stuck', settings, 5, PROBE_TIMEOUT_MS);
    expect(first).toMatchObject({ granted: 2, breaker: { state: 'half-open' } });
    await recordBreakerOutcomes(db.pool, 'stuck', settings, { ok: 1, failed: 0 });
    expect(await row()).toMatchObject({ state: 'half-open', probesStarted: 2, probesSucceeded: 1 });

    // While the lost probe could still be running, nothing more is let through.
    expect((await admitProbes(db.pool, 'stuck', settings, 5, PROBE_TIMEOUT_MS)).granted).toBe(0);

    // Past the probe timeout the silent probe's slot is handed back: one more probe.
    await sleep(PROBE_TIMEOUT_MS + 100);
    const again = await admitProbes(db.pool, 'stuck', settings, 5, PROBE_TIMEOUT_MS);
    expect(again).toMatchObject({ granted: 1, breaker: { state: 'half-open' } });
    // Its success closes the breaker (2 of 2 probes succeeded).
    const closed = await recordBreakerOutcomes(db.pool, 'stuck', settings, { ok: 1, failed: 0 });
    expect(closed.breaker.state).toBe('closed');
    const events = await db.pool.query<{ from_state: string; to_state: string; reason: string }>(
      `SELECT from_state, to_state, reason FROM task_breaker_events WHERE task = 'stuck' ORDER BY id`,
    );
    expect(events.rows.map((e) => `${e.from_state}→${e.to_state}`)).toEqual(['closed→open', 'open→half-open', 'half-open→half-open', 'half-open→closed']);
    expect(events.rows[2]!.reason).toBe(`1 probe gave no outcome within ${PROBE_TIMEOUT_MS} ms; let through again`);
  });
});
