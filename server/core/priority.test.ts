import { describe, expect, it } from 'vitest';
import {
  claimKeyMs,
  claimOrder,
  DEFAULT_AGING_MS,
  effectivePriority,
  executionPriority,
  maxOvertakeMs,
  priorityLeadMs,
  taskPriority,
} from './priority';

describe('priority settings', () => {
  it.each([
    [undefined, { default: 0, agingMs: DEFAULT_AGING_MS }],
    [{ default: 5 }, { default: 5, agingMs: DEFAULT_AGING_MS }],
    [{ agingMs: 1000 }, { default: 0, agingMs: 1000 }],
    [{ default: 3, agingMs: 10 }, { default: 3, agingMs: 10 }],
  ])('taskPriority(%j) = %j', (input, out) => {
    expect(taskPriority(input)).toEqual(out);
  });

  it.each([
    [undefined, 4, 4],
    [0, 4, 0],
    [9, 4, 9],
  ])('executionPriority(requested %s, task default %s) = %s', (req, def, out) => {
    expect(executionPriority(req, { default: def, agingMs: 1000 })).toBe(out);
  });
});

describe('claim key and aging', () => {
  it.each([
    // runAt, priority, agingMs → lead, key
    [10_000, 0, 1000, 0, 10_000],
    [10_000, 1, 1000, 1000, 9000],
    [10_000, 5, 60_000, 300_000, -290_000],
    [10_000, 1000, 1, 1000, 9000],
  ])('run_at %i, priority %i, agingMs %i: lead %i, key %i', (runAt, p, aging, lead, key) => {
    expect(priorityLeadMs(p, aging)).toBe(lead);
    expect(claimKeyMs(runAt, p, aging)).toBe(key);
  });

  it.each([
    // priority, runAt, now, agingMs → effective
    [0, 0, 0, 1000, 0],
    [0, 0, 2500, 1000, 2.5],
    [3, 0, 1000, 1000, 4],
    [3, 5000, 1000, 1000, 3], // not yet due: no aging
  ])('effectivePriority(%i, run_at %i, now %i, aging %i) = %s', (p, runAt, now, aging, out) => {
    expect(effectivePriority(p, runAt, now, aging)).toBe(out);
  });

  it('ordering by the key is ordering by effective priority at any instant', () => {
    const aging = 1000;
    const rows = [
      { id: 1, runAtMs: 0, priority: 0 },
      { id: 2, runAtMs: 500, priority: 2 },
      { id: 3, runAtMs: 4000, priority: 5 },
      { id: 4, runAtMs: 4000, priority: 0 },
      { id: 5, runAtMs: 100, priority: 1 },
    ].map((r) => ({ ...r, leadMs: priorityLeadMs(r.priority, aging) }));
    const now = 5000;
    const byKey = claimOrder(rows).map((r) => r.id);
    const byEffective = [...rows]
      .sort((a, b) => effectivePriority(b.priority, b.runAtMs, now, aging) - effectivePriority(a.priority, a.runAtMs, now, aging) || a.id - b.id)
      .map((r) => r.id);
    expect(byKey).toEqual(byEffective);
    expect(byKey).toEqual([2, 3, 5, 1, 4]);
  });

  it.each([
    // a low row due at 0 against high rows due later: passed only while they became due within (Δp × agingMs)
    [0, 3, 1000, 3000],
    [2, 3, 1000, 1000],
    [5, 3, 1000, 0],
    [0, 1000, 60_000, 60_000_000],
  ])('maxOvertakeMs(low %i, high %i, aging %i) = %i', (low, high, aging, out) => {
    expect(maxOvertakeMs(low, high, aging)).toBe(out);
    // the boundary: a high row due just after the bound ranks behind the low row
    if (out > 0) {
      const low0 = { id: 1, runAtMs: 0, priority: low, leadMs: priorityLeadMs(low, aging) };
      const inside = { id: 2, runAtMs: out - 1, priority: high, leadMs: priorityLeadMs(high, aging) };
      const outside = { id: 3, runAtMs: out + 1, priority: high, leadMs: priorityLeadMs(high, aging) };
      expect(claimOrder([low0, inside, outside]).map((r) => r.id)).toEqual([2, 1, 3]);
    }
  });

  it('equal priorities keep FIFO by run_at, then id', () => {
    const rows = [
      { id: 3, runAtMs: 10, priority: 2, leadMs: 2000 },
      { id: 1, runAtMs: 20, priority: 2, leadMs: 2000 },
      { id: 2, runAtMs: 10, priority: 2, leadMs: 2000 },
    ];
    expect(claimOrder(rows).map((r) => r.id)).toEqual([2, 3, 1]);
  });
});
