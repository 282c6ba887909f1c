import { describe, expect, it } from 'vitest';
import { parseConfig, type TaskDefinitionInput } from '../core/task-definition';
import type { FinishItem } from '../db/finish-executions';
import { claimedRow, taskDef } from '../../test/support/coordinator-fakes';
import { CoordinatorMetrics } from './coordinator-metrics';
import { ExecutionRunner } from './execution-runner';
import type { HandlerMap } from './handler-runner';
import { ServedTasks } from './served-tasks';
import { SlotLedger } from './slot-ledger';

const RETRY = { maxAttempts: 2, backoff: 'fixed' as const, baseDelayMs: 60_000, maxDelayMs: 60_000, jitter: 0 };

function setup(handlers: HandlerMap, task: TaskDefinitionInput = { name: 't', retry: RETRY }) {
  const tasks = new ServedTasks([task.name]);
  const c = parseConfig({ tasks: [task] });
  if (!c.ok) throw new Error('bad config');
  tasks.apply(c.value);
  const ledger = new SlotLedger(10);
  const metrics = new CoordinatorMetrics();
  const added: { task: string; item: FinishItem }[] = [];
  const logs: string[] = [];
  const runner = new ExecutionRunner({
    handlers,
    ledger,
    tasks,
    completer: { add: (t, item) => added.push({ task: t, item }), unflushed: () => added.length },
    tracer: null,
    metrics,
    log: (m) => logs.push(m),
  });
  return { runner, ledger, metrics, added, logs, def: tasks.get(task.name)! };
}
const settled = () => new Promise((r) => setTimeout(r, 0));

describe('ExecutionRunner', () => {
  it('runs the handler with its context and hands a success to the completer; the slot stays taken until written', async () => {
    const seen: unknown[] = [];
    const s = setup({ t: (payload, ctx) => void seen.push(payload, ctx.executionId, ctx.attempt, ctx.idempotencyKey, ctx.partition) });
    s.runner.startClaimed([claimedRow(1, { partition: 3, attempts: 2 }), claimedRow(2, { idempotencyKey: 'k2' })], s.def);
    expect(s.ledger.inFlight).toBe(2);
    await Promise.all(s.ledger.executions().map((e) => e.done));
    expect(seen).toEqual([{ id: 1 }, 1, 2, 't:1', 3, { id: 2 }, 2, 1, 'k2', 0]);
    expect(s.added).toEqual([
      { task: 't', item: { id: 1, leaseToken: 'lease-1', outcome: 'succeeded' } },
      { task: 't', item: { id: 2, leaseToken: 'lease-2', outcome: 'succeeded' } },
    ]);
    expect(s.ledger.inFlight).toBe(2);
  });

  it('a failure is retried under the retry policy applied now, and the last attempt is dead', async () => {
    const s = setup({ t: () => Promise.reject(new RangeError('nope')) });
    const t0 = Date.now();
    s.runner.startClaimed([claimedRow(1, { attempts: 1 }), claimedRow(2, { attempts: 2 })], s.def);
    await Promise.all(s.ledger.executions().map((e) => e.done));
    const [first, second] = s.added.map((a) => a.item);
    expect(first).toMatchObject({ id: 1, outcome: 'retry', error: 'RangeError: nope' });
    expect(first!.runAt!.getTime()).toBeGreaterThanOrEqual(t0 + 60_000);
    expect(first!.fingerprint).toMatch(/^[0-9a-f]{16}$/);
    expect(second).toMatchObject({ id: 2, outcome: 'dead', error: 'RangeError: nope' });
  });

  it("an operator's cancel aborts the handler and finishes it canceled; unknown ids are ignored", async () => {
    const s = setup({ t: (_p, ctx) => new Promise((_res, rej) => ctx.signal.addEventListener('abort', () => rej(ctx.signal.reason))) });
    s.runner.startClaimed([claimedRow(1), claimedRow(2)], s.def);
    expect(s.runner.leases()).toEqual([
      { id: 1, leaseToken: 'lease-1' },
      { id: 2, leaseToken: 'lease-2' },
    ]);
    s.runner.cancel(1);
    s.runner.cancel(1); // already aborted: once
    s.runner.cancel(404);
    await s.ledger.get(1)!.done;
    expect(s.added).toEqual([{ task: 't', item: { id: 1, leaseToken: 'lease-1', outcome: 'canceled' } }]);
    expect(s.logs.filter((l) => l.includes('canceled by an operator'))).toHaveLength(1);
    await s.runner.settle(0);
    expect(s.added[1]!.item).toEqual({ id: 2, leaseToken: 'lease-2', outcome: 'release' });
  });

  it('settle lets handlers finish within the grace period, then releases the rest', async () => {
    let finishSoon!: () => void;
    const s = setup({
      t: (p, ctx) =>
        (p as { id: number }).id === 1
          ? new Promise<void>((r) => (finishSoon = r))
          : new Promise((_res, rej) => ctx.signal.addEventListener('abort', () => rej(ctx.signal.reason))),
    });
    s.runner.startClaimed([claimedRow(1), claimedRow(2)], s.def);
    await settled();
    setTimeout(() => finishSoon(), 20);
    const t0 = Date.now();
    await s.runner.settle(150);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(140);
    expect(s.added.map((a) => [a.item.id, a.item.outcome])).toEqual([
      [1, 'succeeded'],
      [2, 'release'],
    ]);
  });

  it('settle returns at once when every handler has returned (their finishes only wait to be written)', async () => {
    const s = setup({ t: () => {} });
    s.runner.startClaimed([claimedRow(1)], s.def);
    await s.ledger.get(1)!.done;
    const t0 = Date.now();
    await s.runner.settle(10_000);
    expect(Date.now() - t0).toBeLessThan(1000);
  });

  it('a written batch frees its slots and counts outcomes once per batch, fenced apart', () => {
    const s = setup({ t: () => new Promise(() => {}) });
    s.runner.startClaimed([claimedRow(1), claimedRow(2), claimedRow(3)], s.def);
    const item = (id: number): FinishItem => ({ id, leaseToken: `lease-${id}`, outcome: 'succeeded' });
    s.runner.finished({ task: 't', items: [item(1), item(2), item(3)], applied: new Map([[1, 'succeeded'], [2, 'canceled']]) });
    expect(s.ledger.inFlight).toBe(0);
    expect(s.metrics.counterValue('sluice_executions_finished_total', { task: 't', outcome: 'succeeded' })).toBe(1);
    expect(s.metrics.counterValue('sluice_executions_finished_total', { task: 't', outcome: 'canceled' })).toBe(1);
    expect(s.metrics.counterValue('sluice_executions_fenced_total', { task: 't' })).toBe(1);
  });

  it('records handler time per task', async () => {
    const s = setup({ t: () => {} });
    s.runner.startClaimed([claimedRow(1)], taskDef({ name: 't' }));
    await s.ledger.get(1)!.done;
    expect(s.metrics.render()).toMatch(/sluice_handler_duration_seconds_count\{task="t"\} 1/);
  });
});
