// Health (issue 16), two failure modes the design documents name that had no alert:
// seed 002's "is an earlier message blocking this message?" — a stream whose head holds the
// work behind it past the lines (5 min / 30 min) raises streamBlocked, naming the stream and
// its head, and resolves once the stream moves; seed 000's spill policy — executions parked
// in the overflow table past the lines (1,000 / 10,000) raise spillBacklog.
import { describe, expect, it, beforeAll } from 'vitest';
import { testDatabase, type TestDatabase } from './db';
import { applyTasks, fakeCoordinator } from '../support/engine-fixtures';
import { enqueue } from '../../server/services/enqueue';
import { evaluateAlerts } from '../../server/services/alerts';
import { claimExecutions } from '../../server/db/claim-executions';
import { finishExecutions } from '../../server/db/finish-executions';
import { DEFAULT_ALERT_POLICY } from '../../server/core/alert-evaluation';

let db: TestDatabase;
beforeAll(async () => {
  db = await testDatabase();
});

const streamAlerts = async () =>
  (await db.pool.query<{ status: string; severity: string; evidence: Record<string, unknown> }>(`SELECT status, severity, evidence FROM alerts WHERE rule = 'streamBlocked' AND task = 'ordered' ORDER BY id`)).rows;

describe('stream blocked', () => {
  it('fires on the longest-blocked stream past its line, names its head, and resolves when the stream moves', async () => {
    await applyTasks(db.pool, [{ name: 'ordered', partitions: 1, concurrency: 10, stream: { keyPath: 'order' }, thresholds: { alertAfterMs: 0, clearAfterMs: 0 } }]);
    const me = await fakeCoordinator(db.pool, ['ordered']);
    await enqueue(db.pool, 'ordered', [{ payload: { order: 'a' } }, { payload: { order: 'a' } }, { payload: { order: 'a' } }, { payload: { order: 'b' } }]);
    // The heads of both streams start; a's two later executions wait behind its head.
    const running = await claimExecutions(db.pool, me, 'ordered', 10, 3_600_000);
    expect(running).toHaveLength(2);
    const headA = running.find((r) => (r.payload as { order: string }).order === 'a')!;
    const t0 = Date.now();
    await evaluateAlerts(db.pool, new Date(t0 + 60_000));
    expect(await streamAlerts()).toEqual([]);
    await evaluateAlerts(db.pool, new Date(t0 + DEFAULT_ALERT_POLICY.streamBlockedMs.warning + 60_000));
    const [a] = await streamAlerts();
    expect(a).toMatchObject({ status: 'firing', severity: 'warning', evidence: { streamKey: 'a', headId: headA.id, headState: 'running', behind: 2 } });

    // The head finishes: the next one of a is promoted, runs, and nothing waits past the line any more.
    await finishExecutions(db.pool, 'ordered', [{ id: headA.id, leaseToken: headA.leaseToken, outcome: 'succeeded' }]);
    const next = await claimExecutions(db.pool, me, 'ordered', 10, 3_600_000);
    expect(next.map((r) => (r.payload as { order: string }).order)).toEqual(['a']);
    await finishExecutions(db.pool, 'ordered', next.map((r) => ({ id: r.id, leaseToken: r.leaseToken, outcome: 'succeeded' as const })));
    await claimExecutions(db.pool, me, 'ordered', 10, 3_600_000);
    await evaluateAlerts(db.pool, new Date(t0 + DEFAULT_ALERT_POLICY.streamBlockedMs.warning + 2 * 60_000));
    expect((await streamAlerts()).map((x) => x.status)).toEqual(['resolved']);
  });
});

describe('spilled backlog', () => {
  it('fires once the spill policy has parked more than the warning line', async () => {
    await applyTasks(db.pool, [{ name: 'spilly', partitions: 1, backpressure: { maxDepth: 10, policy: 'spill' }, thresholds: { alertAfterMs: 0 } }]);
    await enqueue(db.pool, 'spilly', Array.from({ length: 500 }, (_, i) => ({ payload: { i } })));
    const at = Date.now();
    await evaluateAlerts(db.pool, new Date(at));
    const rows = async () =>
      (await db.pool.query<{ status: string; severity: string; evidence: Record<string, unknown> }>(`SELECT status, severity, evidence FROM alerts WHERE rule = 'spillBacklog' AND task = 'spilly'`)).rows;
    expect(await rows()).toEqual([]);
    await enqueue(db.pool, 'spilly', Array.from({ length: 700 }, (_, i) => ({ payload: { i } })));
    await evaluateAlerts(db.pool, new Date(at + 15_000));
    const [a] = await rows();
    expect(a).toMatchObject({ status: 'firing', severity: 'warning', evidence: { value: 1190, spilled: [1190], policy: 'spill', maxDepth: 10 } });
  });
});
