import { describe, expect, it } from 'vitest';
import { parseConfig, type TaskDefinition, type TaskDefinitionInput } from '../core/task-definition';
import type { ClaimedExecution } from '../db/claim-executions';
import { claimedRow } from '../../test/support/coordinator-fakes';
import { CoordinatorMetrics } from './coordinator-metrics';
import { RefillPlanner } from './refill';
import { ServedTasks } from './served-tasks';
import { SlotLedger } from './slot-ledger';

function setup(tasks: TaskDefinitionInput[], slots = 10) {
  const served = new ServedTasks(tasks.map((t) => t.name));
  const c = parseConfig({ tasks });
  if (!c.ok) throw new Error('bad config');
  served.apply(c.value);
  const ledger = new SlotLedger(slots);
  const metrics = new CoordinatorMetrics();
  const started: { rows: ClaimedExecution[]; def: TaskDefinition }[] = [];
  let wakes = 0;
  const refill = new RefillPlanner({
    coordinatorId: 'me',
    ledger,
    tasks: served,
    leaseGraceMs: 5000,
    metrics,
    start: (rows, def) => started.push({ rows, def }),
    wake: () => wakes++,
  });
  return { served, ledger, metrics, started, refill, wakes: () => wakes };
}

describe('RefillPlanner', () => {
  it('reserves the freed slots for the claim riding on a flush, and gives them back with the claimed rows', () => {
    const s = setup([{ name: 'a', timeoutMs: 1000 }]);
    s.ledger.hold(10); // stand-in for 10 running rows: the ledger is full
    const plan = s.refill.plan('a', 4);
    expect(plan).toEqual({ max: 4, leaseMs: 6000 });
    expect(s.ledger.busy()).toBe(14);
    expect(s.refill.riding('a')).toBe(true);
    expect(s.refill.riding('b')).toBe(false);
    s.refill.done('a', 4, [claimedRow(1), claimedRow(2)]);
    expect(s.ledger.busy()).toBe(10);
    expect(s.refill.riding('a')).toBe(false);
    expect(s.started).toHaveLength(1);
    expect(s.started[0]!.rows.map((r) => r.id)).toEqual([1, 2]);
    expect(s.started[0]!.def.name).toBe('a');
    expect(s.metrics.counterValue('sluice_executions_claimed_total', { task: 'a' })).toBe(2);
    // one task: the refill asked for every free slot, so the claim loop is not woken
    expect(s.wakes()).toBe(0);
  });

  it('starts the rows under the definition the claim was planned with, even if a new version came in between', () => {
    const s = setup([{ name: 'a', timeoutMs: 1000 }]);
    s.refill.plan('a', 1);
    const c = parseConfig({ tasks: [{ name: 'a', timeoutMs: 9000 }] });
    if (c.ok) s.served.apply(c.value);
    s.refill.done('a', 1, [claimedRow(1)]);
    expect(s.started[0]!.def.timeoutMs).toBe(1000);
  });

  it('a claim that came back empty (or failed) only returns the reservation', () => {
    const s = setup([{ name: 'a' }]);
    const plan = s.refill.plan('a', 3)!;
    s.refill.done('a', plan.max, []);
    expect(s.ledger.busy()).toBe(0);
    expect(s.started).toEqual([]);
    expect(s.metrics.counterValue('sluice_executions_claimed_total', { task: 'a' })).toBe(0);
  });

  it('with several active tasks it takes a fair share and wakes the claim loop for the rest', () => {
    const s = setup([{ name: 'a' }, { name: 'b' }]);
    s.ledger.hold(10);
    expect(s.refill.plan('a', 5)).toMatchObject({ max: 3 }); // ceil(5 / 2)
    s.refill.done('a', 3, []);
    expect(s.wakes()).toBe(1);
  });

  it.each([
    { name: 'an unknown task', task: 'zzz', tasks: [{ name: 'a' }], drain: false },
    { name: 'a paused task', task: 'a', tasks: [{ name: 'a', paused: true }], drain: false },
    { name: 'a draining member', task: 'a', tasks: [{ name: 'a' }], drain: true },
  ])('finish only for $name: nothing reserved', ({ task, tasks, drain }) => {
    const s = setup(tasks);
    if (drain) s.served.startDraining();
    expect(s.refill.plan(task, 4)).toBeNull();
    expect(s.ledger.busy()).toBe(0);
    expect(s.refill.riding(task)).toBe(false);
  });

  it('finish only when no slot would be free (over-reserved by the claim loop)', () => {
    const s = setup([{ name: 'a' }], 4);
    s.ledger.hold(8);
    expect(s.refill.plan('a', 2)).toBeNull();
    expect(s.ledger.busy()).toBe(8);
  });
});
